# Debian packages (CPack DEB, one package per install component):
#   xtview               component app: xtview, xtrace, icons, .desktop, metainfo, MIME type
#   xtview-recorder-dev  component sdk: libxtrecorder.so.N, header, CMake package, pkg-config
#                        file, Python module
# The SDK is one package rather than libxtrecorderN + libxtrecorder-dev: its only consumers are
# training jobs that build against it and load it (C, C++, Python ctypes) from the same install,
# and the Python module needs the .so beside the header anyway; splitting would add a package
# that nothing else depends on. Depends are computed with dpkg-shlibdeps.
set(CPACK_PACKAGE_NAME xtview)
set(CPACK_PACKAGE_VENDOR "xtview")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# CPack 3.25 prepends a non-default summary to every component's description; its default value
# keeps each package's own first line (the synopsis) first.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_NAME} built using CMake")
set(CPACK_PACKAGE_CONTACT "xtview developers")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_COMPONENTS_ALL app sdk)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")

set(CPACK_DEBIAN_APP_PACKAGE_NAME xtview)
set(CPACK_DEBIAN_APP_PACKAGE_SECTION science)
set(CPACK_DEBIAN_APP_DESCRIPTION
  "Trace viewer and analyzer for deep-learning training
xtview reads XDL tensor traces and Chrome-trace timelines and computes per-key
statistics, histograms and run-to-run differences. This package contains the
desktop application xtview and the command line xtrace.")

set(CPACK_DEBIAN_SDK_PACKAGE_NAME xtview-recorder-dev)
set(CPACK_DEBIAN_SDK_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_SDK_PACKAGE_SUGGESTS "python3, python3-numpy, xtview")
set(CPACK_DEBIAN_SDK_DESCRIPTION
  "Recorder SDK of xtview: write XDL tensor traces from a training job
libxtrecorder.so (C API), its header <xtrecorder/xt_recorder.h>, a CMake
package (find_package(XtRecorder), target XtRecorder::xtrecorder), a
pkg-config file (xtrecorder) and the Python module xtrecorder (ctypes).")

include(CPack)
