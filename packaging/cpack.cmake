# Debian packages (CPack DEB, one package per install component):
#   xtview               component app: xtview, xtrace, icons, .desktop, metainfo, MIME type
#   xtview-recorder-dev  component sdk: libxtrecorder.so.N, header, CMake package, pkg-config
#                        file
#   python3-xtview       component python (when the extension module is built): the Python
#                        package xtview (analysis core, xtview.dask, xtview.recorder) and the
#                        recorder's former module name xtrecorder
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
if(XT_PYTHON_ENABLED)
  list(APPEND CPACK_COMPONENTS_ALL python)
endif()
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
pkg-config file (xtrecorder). The Python module is in python3-xtview.")

# The extension module is built for one Python minor version (its ABI tag).
set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-xtview)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS
    "python3 (>= ${XT_PYTHON_VERSION}), python3 (<< ${XT_PYTHON_NEXT_VERSION}), python3-numpy, python3-pandas")
set(CPACK_DEBIAN_PYTHON_PACKAGE_RECOMMENDS "python3-dask, python3-distributed, xtview-recorder-dev")
set(CPACK_DEBIAN_PYTHON_PACKAGE_CONTROL_EXTRA
    "${CMAKE_CURRENT_LIST_DIR}/python3-xtview/postinst;${CMAKE_CURRENT_LIST_DIR}/python3-xtview/prerm")
set(CPACK_DEBIAN_PYTHON_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
set(CPACK_DEBIAN_PYTHON_DESCRIPTION
  "XDL traces and timelines in Python (numpy, pandas, Dask)
The xtview package: XDL tensor traces as pandas DataFrames and numpy arrays
(statistics, tensors, histograms, first NaN/Inf, run differences), Chrome-trace
op summaries and step breakdowns, the same analyses on a Dask distributed
cluster (xtview.dask), and the trace recorder (xtview.recorder, also importable
as xtrecorder, which needs libxtrecorder.so from xtview-recorder-dev). The
compiled core loads no protobuf runtime, so it imports next to TensorFlow and
PyTorch.")

include(CPack)
