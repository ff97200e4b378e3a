// tpuc-view calibration: the PNG figures of a calibration report (tpuc calibrate --report DIR).
#ifndef TPUC_APP_TPUC_VIEW_CALIBRATIONVIEW_H
#define TPUC_APP_TPUC_VIEW_CALIBRATIONVIEW_H

#include <string>
#include <vector>

namespace tpuc::view {

/// `tpuc view calibration --report DIR [-o DIR] [--max_tensors N] [--width W --height H] [--theme T]`;
/// `args` starts with "calibration". Returns the exit code (0 written, 1 writing failed, 2 bad usage or an
/// unreadable report).
int runCalibrationView(int argc, char **argv, const std::vector<std::string> &args);

} // namespace tpuc::view

#endif
