// Sample thumbnails made off the UI thread, newest request first, cached in memory and on disk by content.
#include "ui/models/ThumbnailCache.h"

#include <QColorSpace>
#include <QDir>
#include <QFileInfo>
#include <QImageReader>
#include <QPainter>
#include <QRunnable>
#include <QSaveFile>

namespace tpuc::ui {

namespace {

/// Requests kept waiting: about four screens of a thumbnail grid. Older ones are dropped (and asked for
/// again if their rows come back on screen).
constexpr qsizetype kMaxQueued = 512;

/// The disk cache's file for a content-hash key ("sha256:<hex>" -> <dir>/<hex[0..1]>/<hex>.png); empty for a
/// key that is a path (its content is not known yet, so it is not cached across sessions).
QString diskFile(const QString &dir, const QString &key) {
  static const QString prefix = QStringLiteral("sha256:");
  if (dir.isEmpty() || !key.startsWith(prefix) || key.size() < prefix.size() + 8)
    return {};
  const QString hex = key.mid(prefix.size());
  return dir + QLatin1Char('/') + hex.left(2) + QLatin1Char('/') + hex + QStringLiteral(".png");
}

} // namespace

QImage makeThumbnail(const QString &file, int side, QString *error) {
  QImageReader reader(file);
  reader.setAutoTransform(true);
  const QSize full = reader.size();
  // Let the decoder scale (JPEG decodes at 1/2, 1/4 or 1/8 directly); twice the side keeps the final smooth
  // scaling sharp.
  if (full.isValid() && (full.width() > 2 * side || full.height() > 2 * side))
    reader.setScaledSize(full.scaled(2 * side, 2 * side, Qt::KeepAspectRatio));
  QImage image = reader.read();
  if (image.isNull()) {
    if (error)
      *error = reader.errorString();
    return {};
  }
  QImage thumb = image.width() > side || image.height() > side
                     ? image.scaled(side, side, Qt::KeepAspectRatio, Qt::SmoothTransformation)
                     : image;
  if (thumb.colorSpace().isValid() && thumb.colorSpace() != QColorSpace(QColorSpace::SRgb))
    thumb.convertToColorSpace(QColorSpace(QColorSpace::SRgb));
  thumb.setColorSpace(QColorSpace());
  return thumb;
}

QPixmap squareThumbnail(const QImage &thumb, int side) {
  QImage square(side, side, QImage::Format_ARGB32_Premultiplied);
  square.fill(Qt::transparent);
  QPainter painter(&square);
  painter.drawImage((side - thumb.width()) / 2, (side - thumb.height()) / 2, thumb);
  painter.end();
  return QPixmap::fromImage(square);
}

struct ThumbnailCache::Shared {
  std::mutex mutex;
  std::deque<std::pair<QString, QString>> queue; ///< (key, file), newest at the back
  int running = 0;
  std::atomic<bool> stop{false};
};

ThumbnailCache::ThumbnailCache(int side, const QString &diskDir, QObject *parent)
    : QObject(parent), m_side(side), m_diskDir(diskDir), m_shared(std::make_shared<Shared>()) {
  // About 4,000 thumbnails of 96 px (64 MB): the cost is in kilobytes.
  m_memory.setMaxCost(64 * 1024);
  QImage blank(side, side, QImage::Format_ARGB32_Premultiplied);
  blank.fill(Qt::transparent);
  m_placeholder = QPixmap::fromImage(blank);
  m_pool.setMaxThreadCount(std::max(1, QThread::idealThreadCount()));
}

ThumbnailCache::~ThumbnailCache() {
  m_shared->stop = true;
  m_pool.waitForDone();
}

int ThumbnailCache::pending() const { return static_cast<int>(m_queued.size()); }

QPixmap ThumbnailCache::get(const QString &key, const QString &file) {
  if (const QPixmap *pixmap = m_memory.object(key))
    return *pixmap;
  if (m_queued.contains(key) || m_failed.contains(key))
    return {};
  m_queued.insert(key);
  bool startWorker = false;
  {
    std::lock_guard lock(m_shared->mutex);
    m_shared->queue.emplace_back(key, file);
    while (static_cast<qsizetype>(m_shared->queue.size()) > kMaxQueued) {
      m_queued.remove(m_shared->queue.front().first);
      m_shared->queue.pop_front();
    }
    if (m_shared->running < m_pool.maxThreadCount()) {
      ++m_shared->running;
      startWorker = true;
    }
  }
  if (startWorker) {
    m_pool.start([shared = m_shared, side = m_side, dir = m_diskDir, self = this] {
      for (;;) {
        std::pair<QString, QString> request;
        {
          std::lock_guard lock(shared->mutex);
          if (shared->queue.empty() || shared->stop) {
            --shared->running;
            return;
          }
          request = std::move(shared->queue.back());
          shared->queue.pop_back();
        }
        const QString cached = diskFile(dir, request.first);
        QImage image;
        if (!cached.isEmpty() && QFileInfo::exists(cached))
          image.load(cached, "PNG");
        if (image.isNull()) {
          image = makeThumbnail(request.second, side);
          if (!image.isNull() && !cached.isEmpty() && QDir().mkpath(QFileInfo(cached).path())) {
            QSaveFile out(cached);
            if (out.open(QIODevice::WriteOnly) && image.save(&out, "PNG"))
              out.commit();
          }
        }
        // Queued to the cache's thread; the destructor waits for the workers, and events for a deleted
        // object are discarded, so this never reaches a dead cache.
        QMetaObject::invokeMethod(
            self, [self, key = request.first, image] { self->finished(key, image); }, Qt::QueuedConnection);
      }
    });
  }
  return {};
}

void ThumbnailCache::finished(const QString &key, const QImage &image) {
  m_queued.remove(key);
  if (image.isNull()) {
    m_failed.insert(key);
  } else {
    auto *pixmap = new QPixmap(squareThumbnail(image, m_side));
    m_memory.insert(key, pixmap, std::max<qsizetype>(1, qsizetype(m_side) * m_side * 4 / 1024));
  }
  Q_EMIT ready(key);
}

} // namespace tpuc::ui
