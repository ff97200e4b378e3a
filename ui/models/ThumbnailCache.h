// Sample thumbnails made off the UI thread, newest request first, cached in memory and on disk by content.
#ifndef TPUC_UI_MODELS_THUMBNAILCACHE_H
#define TPUC_UI_MODELS_THUMBNAILCACHE_H

#include <QCache>
#include <QImage>
#include <QObject>
#include <QPixmap>
#include <QSet>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>

namespace tpuc::ui {

/// Decodes an image file into a thumbnail whose longer side is `side` pixels (the reader decodes JPEGs at
/// a reduced scale directly), in sRGB. A null image and `error` set when the file is not a readable image.
QImage makeThumbnail(const QString &file, int side, QString *error = nullptr);

/// `thumb` centred on a transparent `side` x `side` square, so the names under a grid of thumbnails line up
/// whatever the images' aspect ratios.
QPixmap squareThumbnail(const QImage &thumb, int side);

/// Thumbnails by key: a content hash ("sha256:<hex>"), so a copy or a move of a file is not decoded again,
/// or the file's path while its hash is not known yet. get() answers from memory at once, or queues the
/// file and returns a null pixmap; `ready` follows when it is made (from the disk cache when a earlier
/// session made it, else by decoding the file on a worker thread). The queue is served newest first and
/// holds a bounded number of requests, so scrolling through 100,000 files decodes what is on screen now,
/// not what was on screen a second ago. Lives on the UI thread.
class ThumbnailCache : public QObject {
  Q_OBJECT
public:
  /// `diskDir` keeps one PNG per content hash across sessions; empty: memory only.
  ThumbnailCache(int side, const QString &diskDir, QObject *parent = nullptr);
  ~ThumbnailCache() override;

  int side() const { return m_side; }
  /// The thumbnail of `key`, or a null pixmap after queueing `file` (nothing is queued twice).
  QPixmap get(const QString &key, const QString &file);
  /// True when `key` could not be made (the file is not a readable image); its error.
  bool failed(const QString &key) const { return m_failed.contains(key); }
  /// A transparent side x side pixmap: what a grid shows until a thumbnail is ready.
  QPixmap placeholder() const { return m_placeholder; }
  /// Requests queued or being decoded.
  int pending() const;

Q_SIGNALS:
  void ready(const QString &key);

private:
  struct Shared;
  void finished(const QString &key, const QImage &image);

  int m_side;
  QString m_diskDir;
  QPixmap m_placeholder;
  QCache<QString, QPixmap> m_memory;
  QSet<QString> m_queued; ///< keys requested and not finished yet
  QSet<QString> m_failed;
  std::shared_ptr<Shared> m_shared; ///< the queue the workers take from
  QThreadPool m_pool;
};

} // namespace tpuc::ui

#endif
