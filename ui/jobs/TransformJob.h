// The transform job's settings: the project's import settings (model_transform's flags) as the part of the
// `tpuc transform` request that does not depend on the model file.
#ifndef TPUC_UI_JOBS_TRANSFORMJOB_H
#define TPUC_UI_JOBS_TRANSFORMJOB_H

#include "project/Project.h"
#include "tpuc/Driver/Requests.h"
#include "tpuc/Support/Result.h"

namespace tpuc::ui {

/// The request fields the import settings give: input shapes, mean, scale, pixel and channel format,
/// resize_dims, keep_aspect_ratio with its pad value, output names. Run ▸ Transform Model adds the model and
/// the job's files; the preprocessing preview takes the preprocessing flags from it
/// (driver::preprocessFlags), so the preview reads the settings exactly as the engine is asked to. The
/// failure is one sentence naming the setting ("The pad value 1.5 is not an integer.").
Result<driver::TransformOptions> transformRequest(const project::ImportSettings &settings);

} // namespace tpuc::ui

#endif
