// The example project as `tpu-studio --example` opens it: found beside the executable, copied where the user
// can write when it is installed read-only.
#ifndef TPUC_APP_TPU_STUDIO_EXAMPLEPROJECT_H
#define TPUC_APP_TPU_STUDIO_EXAMPLEPROJECT_H

#include <QString>

namespace tpuc::app {

/// The example's folder: `<exe>/../share/tpu-studio/example` (installed) or `<exe>/../example` (a build
/// tree, ninja tpuc-example-project); empty when neither holds ppocr-cls.tpuproj.
QString exampleSourceDir();

/// The example project file to open, or why there is none.
struct ExampleProject {
  QString path;  ///< empty on failure
  QString error; ///< why, on failure
};
/// The example project to open: in place in a build tree, else (installed) a copy of the folder in
/// `<AppDataLocation>/example` (made the first time; later runs keep the user's calibrations and runs).
/// Fails when there is no example or the copy fails.
ExampleProject openableExampleProject();

} // namespace tpuc::app

#endif // TPUC_APP_TPU_STUDIO_EXAMPLEPROJECT_H
