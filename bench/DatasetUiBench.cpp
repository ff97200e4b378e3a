//===- DatasetUiBench.cpp - Importing a large dataset folder in the studio --===//
//
// Generates N distinct images (tests/common/DatasetGen.h) over 10 folders, opens the real main window
// (offscreen), imports the folder with File ▸ Import Dataset Folder's code path and, while the dataset view
// lists, scans and reports on it, scrolls the thumbnail grid a page every 100 ms like a user looking through
// it. Prints, beside the goals of issue 21: the time to the listing, to the first thumbnail, to the first
// screen of thumbnails complete, to all metadata (scan done) and to the quality report, the event-loop
// stalls over 50 ms (a 5 ms timer watches the UI thread) with the longest, and the peak RSS. A second
// import of the same folder shows the cached case (metadata and thumbnails by content hash). Exit 1 when a
// step fails; the goals are printed, not enforced (the machine may be loaded).
//
//   bench-dataset-ui [--images N] [--size WxH] [--dir DIR] [--keep]
//
//===----------------------------------------------------------------------===//

#include "DatasetGen.h"

#include "ui/MainWindow.h"
#include "ui/StudioContext.h"
#include "ui/models/DatasetFilesModel.h"
#include "ui/models/ThumbnailCache.h"
#include "ui/views/DatasetView.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QListView>
#include <QScrollBar>
#include <QTabWidget>
#include <QTimer>

#include <sys/resource.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

using namespace tpuc;
using namespace tpuc::ui;

namespace {

struct Figures {
  double listed = -1, firstThumbnail = -1, firstScreen = -1, metadata = -1, quality = -1;
  int stalls = 0;
  double longestStall = 0;
};

/// Waits in the event loop until `done` or `seconds` pass; false on timeout.
template <typename Done> bool waitUntil(Done done, double seconds) {
  QElapsedTimer clock;
  clock.start();
  while (!done()) {
    if (clock.elapsed() > seconds * 1000)
      return false;
    QApplication::processEvents(QEventLoop::AllEvents, 5);
  }
  return true;
}

/// Rows of the grid's first screen whose thumbnail is not made yet.
int missingOnScreen(DatasetView *view) {
  QListView *grid = view->view();
  const QRect visible = grid->viewport()->rect();
  int missing = 0, seen = 0;
  for (int r = 0; r < grid->model()->rowCount() && seen < 200; ++r) {
    const QModelIndex i = grid->model()->index(r, 0);
    if (!grid->visualRect(i).intersects(visible))
      continue;
    ++seen;
    const DatasetRow &row = view->filesModel()->row(view->proxy()->mapToSource(i).row());
    if (row.image && !row.unreadable && !view->thumbnails()->failed(row.thumbnailKey) &&
        view->thumbnails()->get(row.thumbnailKey, row.absolute).isNull())
      ++missing;
  }
  return seen == 0 ? 1 : missing;
}

bool importOnce(MainWindow &window, const QString &folder, Figures &f) {
  QElapsedTimer clock;
  clock.start();
  // The stall watch: a 5 ms timer; a gap over 50 ms between its ticks is a stall of the UI thread.
  QElapsedTimer tick;
  tick.start();
  QTimer watch;
  watch.setInterval(5);
  QObject::connect(&watch, &QTimer::timeout, [&] {
    const double gap = static_cast<double>(tick.nsecsElapsed()) / 1e6;
    tick.restart();
    if (gap > 50) {
      ++f.stalls;
      f.longestStall = std::max(f.longestStall, gap);
    }
  });
  watch.start();
  auto seconds = [&] { return static_cast<double>(clock.nsecsElapsed()) / 1e9; };

  bool imported = false;
  QObject::connect(
      &window, &MainWindow::datasetImported, &window, [&](qint64 id) { imported = id > 0; },
      Qt::SingleShotConnection);
  window.importDatasetFolder(folder);
  if (!waitUntil([&] { return imported; }, 120)) {
    std::fprintf(stderr, "bench-dataset-ui: the folder was not listed\n");
    return false;
  }
  f.listed = seconds();
  auto *view = qobject_cast<DatasetView *>(window.centralTabs()->currentWidget());
  if (!view)
    return false;
  QObject::connect(view->thumbnails(), &ThumbnailCache::ready, view, [&] {
    if (f.firstThumbnail < 0)
      f.firstThumbnail = seconds();
  });
  QObject::connect(view, &DatasetView::scanFinished, view, [&](bool ok) {
    if (ok && f.metadata < 0)
      f.metadata = seconds();
  });
  QObject::connect(view, &DatasetView::qualityReady, view, [&] {
    if (f.quality < 0)
      f.quality = seconds();
  });
  // A user scrolling a page every 100 ms once the first screen is complete.
  QTimer scroll;
  scroll.setInterval(100);
  QObject::connect(&scroll, &QTimer::timeout, [&] {
    QScrollBar *bar = view->view()->verticalScrollBar();
    bar->setValue(bar->value() + bar->pageStep() >= bar->maximum() ? 0 : bar->value() + bar->pageStep());
  });
  if (!waitUntil([&] { return missingOnScreen(view) == 0; }, 120)) {
    std::fprintf(stderr, "bench-dataset-ui: the first screen of thumbnails was not complete after 120 s\n");
    return false;
  }
  f.firstScreen = seconds();
  scroll.start();
  if (!waitUntil([&] { return !view->scanning() && view->idle(); }, 600)) {
    std::fprintf(stderr, "bench-dataset-ui: the scan did not finish in 600 s\n");
    return false;
  }
  scroll.stop();
  watch.stop();
  return f.metadata > 0;
}

void print(const char *what, const Figures &f, size_t images) {
  std::printf("%-28s %8.2f %8.2f %8.2f %8.2f %8.2f %6d %8.0f   (%zu images)\n", what, f.listed,
              f.firstThumbnail, f.firstScreen, f.metadata, f.quality, f.stalls, f.longestStall, images);
}

} // namespace

int main(int argc, char **argv) {
  size_t images = 10000;
  int width = 160, height = 120;
  std::string dir = (std::filesystem::temp_directory_path() / "tpuc-bench-dataset-ui").string();
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--images") && i + 1 < argc)
      images = std::stoul(argv[++i]);
    else if (!std::strcmp(argv[i], "--size") && i + 1 < argc &&
             std::sscanf(argv[i + 1], "%dx%d", &width, &height) == 2)
      ++i;
    else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc)
      dir = argv[++i];
    else if (!std::strcmp(argv[i], "--keep"))
      keep = true;
    else {
      std::fprintf(stderr, "usage: bench-dataset-ui [--images N] [--size WxH] [--dir DIR] [--keep]\n");
      return 2;
    }
  }
  qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("tpu-studio-bench"));
  const std::string folder = dir + "/images";
  if (!std::filesystem::exists(folder)) {
    std::printf("generating %zu images of %dx%d in %s ...\n", images, width, height, folder.c_str());
    std::fflush(stdout);
    testing::generateImageFolder(folder, images, 10, width, height);
  }
  StudioContext context;
  MainWindow window(&context);
  window.setInteractive(false);
  window.startup(QString());
  QString error;
  if (!context.saveAs(QString::fromStdString(dir + "/bench.tpuproj"), &error)) {
    std::fprintf(stderr, "bench-dataset-ui: %s\n", qPrintable(error));
    return 1;
  }
  // Cold means cold: no metadata or thumbnail cached by an earlier run of the bench.
  QDir(datasetCacheDir(&context)).removeRecursively();
  window.resize(1400, 900);
  window.show();

  std::printf("%-28s %8s %8s %8s %8s %8s %6s %8s\n", "import (seconds)", "listed", "1st thb", "1st scr",
              "metadata", "quality", "stalls", "max ms");
  Figures cold, cached;
  if (!importOnce(window, QString::fromStdString(folder), cold))
    return 1;
  print("cold (read, hash, decode)", cold, images);
  // The same folder again: its metadata and thumbnails come from the content-hash caches.
  if (!importOnce(window, QString::fromStdString(folder), cached))
    return 1;
  print("again (from the caches)", cached, images);
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("%-28s %8s %8.1f %8s %8.1f %8s %6d %8d   goals of issue 21 (10,000 images)\n", "goal", "", 1.0,
              "", 60.0, "", 0, 50);
  std::printf("peak RSS %.0f MB\n", static_cast<double>(usage.ru_maxrss) / 1024.0);
  if (!keep)
    std::filesystem::remove_all(dir);
  return 0;
}
