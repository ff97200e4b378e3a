// Turns dropped or chosen files into calibration samples: metadata and a PNG thumbnail per file.
#ifndef TPUC_UI_SAMPLEIMPORT_H
#define TPUC_UI_SAMPLEIMPORT_H

#include "project/Project.h"

#include <QStringList>

namespace tpuc::ui {

/// Longest side of a sample thumbnail, in image pixels (stored data, not screen geometry).
inline constexpr int kThumbnailSide = 96;

/// True for the files a calibration dataset accepts: images Qt can read, .npy and .npz tensors.
bool isSampleFile(const QString &path);

/// Reads each file and describes it: images get their size and format in the metadata and a thumbnail,
/// .npy files their dtype and shape. Unreadable files are skipped and named in `errors`.
/// Pure and thread-safe: run it off the UI thread.
std::vector<project::Sample> makeSamples(const QStringList &paths, QStringList *errors);

} // namespace tpuc::ui

#endif
