#pragma once
// The dialog that adds or edits a note: its text, its colour (a few named ones, or any) and
// what it marks, chosen among the places the caller offers (the step cursor, the cursors' range,
// the selected time range...).

#include "widgets/notes.h"

#include <QDialog>

class QComboBox;
class QLineEdit;
class QToolButton;

namespace xt::widgets {

class NoteDialog : public QDialog {
    Q_OBJECT
public:
    // A place the note can mark: its label and the note's kind, begin and end.
    struct Place {
        QString label;
        Note::Kind kind = Note::Kind::Step;
        qint64 begin = 0, end = 0;
    };
    // `note` gives the text and colour to start from; `places` must not be empty.
    NoteDialog(const Note& note, std::vector<Place> places, QWidget* parent = nullptr);

    // The note as edited (target and id as given).
    Note note() const;
    QLineEdit* textEdit() const { return m_text; }

private:
    void setColour(const QColor& c);

    Note m_note;
    std::vector<Place> m_places;
    QLineEdit* m_text;
    QComboBox* m_place;
    QComboBox* m_colour;
};

} // namespace xt::widgets
