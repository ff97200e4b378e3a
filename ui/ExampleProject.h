// The example project as `tpu-studio --example` and the start page open it: found beside the executable,
// copied where the user can write when it is installed read-only.
#ifndef TPUC_UI_EXAMPLEPROJECT_H
#define TPUC_UI_EXAMPLEPROJECT_H

#include <QString>

namespace tpuc::ui {

/// The example's folder: `<exe>/../share/tpu-studio/example` (installed) or `<exe>/../example` (a build
/// tree, ninja tpuc-example-project); empty when neither holds ppocr-cls.tpuproj.
QString exampleSourceDir();

/// The example project file to open, or why there is none.
struct ExampleProject {
  QString path;  ///< empty on failure
  QString error; ///< why, on failure
};
/// The example's project file where it lies (TPUC_EXAMPLE_PROJECT when set, else in exampleSourceDir()),
/// empty when there is none: what the start page offers.
QString exampleProjectFile();

/// The example project to open: TPUC_EXAMPLE_PROJECT or a build tree's in place, else (installed) a copy of
/// the folder in
/// `<AppDataLocation>/example` (made the first time; later runs keep the user's calibrations and runs).
/// Fails when there is no example or the copy fails.
ExampleProject openableExampleProject();

} // namespace tpuc::ui

#endif // TPUC_UI_EXAMPLEPROJECT_H
