#include "widgets/note_dialog.h"

#include <QColorDialog>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QPixmap>

namespace xt::widgets {

namespace {

QIcon swatch(const QColor& c) {
    QPixmap p(14, 14);
    p.fill(c);
    return QIcon(p);
}

const std::pair<const char*, QRgb> kColours[] = {
    {QT_TRANSLATE_NOOP("NoteDialog", "orange"), 0xffe08a00},
    {QT_TRANSLATE_NOOP("NoteDialog", "red"), 0xffd02828},
    {QT_TRANSLATE_NOOP("NoteDialog", "green"), 0xff2ca02c},
    {QT_TRANSLATE_NOOP("NoteDialog", "blue"), 0xff1f77b4},
    {QT_TRANSLATE_NOOP("NoteDialog", "purple"), 0xff9467bd},
    {QT_TRANSLATE_NOOP("NoteDialog", "grey"), 0xff707070},
};

} // namespace

NoteDialog::NoteDialog(const Note& note, std::vector<Place> places, QWidget* parent)
    : QDialog(parent), m_note(note), m_places(std::move(places)), m_text(new QLineEdit(this)),
      m_place(new QComboBox(this)), m_colour(new QComboBox(this)) {
    setWindowTitle(note.id ? tr("Edit Note") : tr("Add Note"));
    m_text->setText(note.text);
    m_text->setPlaceholderText(tr("What happened here"));
    m_text->setMinimumWidth(360);
    for (const Place& p : m_places)
        m_place->addItem(p.label);
    for (const auto& [name, rgb] : kColours)
        m_colour->addItem(swatch(QColor::fromRgb(rgb)), tr(name), QColor::fromRgb(rgb));
    m_colour->addItem(tr("Other..."));
    setColour(note.colour);
    connect(m_colour, &QComboBox::activated, this, [this](int i) {
        if (i != m_colour->count() - 1) return;
        const QColor c = QColorDialog::getColor(m_note.colour, this, tr("Note colour"));
        setColour(c.isValid() ? c : m_note.colour);
    });
    auto* form = new QFormLayout(this);
    form->addRow(tr("&Text:"), m_text);
    form->addRow(tr("&Marks:"), m_place);
    form->addRow(tr("&Colour:"), m_colour);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

void NoteDialog::setColour(const QColor& c) {
    m_note.colour = c;
    int i = m_colour->findData(c);
    if (i < 0) {
        m_colour->insertItem(m_colour->count() - 1, swatch(c), c.name(), c);
        i = m_colour->count() - 2;
    }
    m_colour->setCurrentIndex(i);
}

Note NoteDialog::note() const {
    Note n = m_note;
    n.text = m_text->text().trimmed();
    const QVariant c = m_colour->currentData();
    if (c.isValid()) n.colour = c.value<QColor>();
    if (m_place->currentIndex() >= 0) {
        const Place& p = m_places[std::size_t(m_place->currentIndex())];
        n.kind = p.kind;
        n.begin = std::min(p.begin, p.end);
        n.end = std::max(p.begin, p.end);
    }
    return n;
}

} // namespace xt::widgets
