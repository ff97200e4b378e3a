// Calibration samples from image and tensor files.
#include "ui/SampleImport.h"

#include <QBuffer>
#include <QColorSpace>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QImageReader>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace tpuc::ui {

namespace {

std::string compactJson(const QJsonObject &o) {
  return QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString();
}

/// The dtype and shape from a .npy header ("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }").
bool describeNpy(const QString &path, QJsonObject &meta) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly))
    return false;
  QByteArray head = file.read(10);
  if (head.size() < 10 || !head.startsWith("\x93NUMPY"))
    return false;
  int major = static_cast<unsigned char>(head[6]);
  qint64 headerLength = static_cast<unsigned char>(head[8]) | (static_cast<unsigned char>(head[9]) << 8);
  if (major >= 2) { // version 2+ has a 4-byte header length
    QByteArray more = file.read(2);
    if (more.size() < 2)
      return false;
    headerLength |= (qint64(static_cast<unsigned char>(more[0])) << 16) | (qint64(static_cast<unsigned char>(more[1])) << 24);
  }
  QString header = QString::fromLatin1(file.read(headerLength));
  auto descr = QRegularExpression(QStringLiteral("'descr':\\s*'([^']+)'")).match(header);
  auto shape = QRegularExpression(QStringLiteral("'shape':\\s*\\(([^)]*)\\)")).match(header);
  if (!descr.hasMatch() || !shape.hasMatch())
    return false;
  QJsonArray dims;
  for (const QString &dim : shape.captured(1).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    bool ok = false;
    qint64 v = dim.trimmed().toLongLong(&ok);
    if (!ok)
      return false;
    dims.append(v);
  }
  meta[QStringLiteral("dtype")] = descr.captured(1);
  meta[QStringLiteral("shape")] = dims;
  return true;
}

} // namespace

bool isSampleFile(const QString &path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("npy") || suffix == QLatin1String("npz"))
    return true;
  return QImageReader::supportedImageFormats().contains(suffix.toLatin1());
}

std::vector<project::Sample> makeSamples(const QStringList &paths, QStringList *errors) {
  std::vector<project::Sample> samples;
  for (const QString &path : paths) {
    QFileInfo info(path);
    QJsonObject meta{{QStringLiteral("bytes"), info.size()}};
    project::Sample sample;
    sample.path = info.absoluteFilePath().toStdString();
    const QString suffix = info.suffix().toLower();
    if (suffix == QLatin1String("npy")) {
      meta[QStringLiteral("format")] = QStringLiteral("npy");
      if (!describeNpy(path, meta)) {
        errors->append(QObject::tr("'%1' is not a readable .npy file").arg(path));
        continue;
      }
    } else if (suffix == QLatin1String("npz")) {
      meta[QStringLiteral("format")] = QStringLiteral("npz");
      if (!info.isReadable()) {
        errors->append(QObject::tr("'%1' cannot be read").arg(path));
        continue;
      }
    } else {
      QImageReader reader(path);
      reader.setAutoTransform(true);
      const QByteArray format = reader.format(); // detected from the content; empty again after read()
      QImage image = reader.read();
      if (image.isNull()) {
        errors->append(QObject::tr("'%1' is not a readable image: %2").arg(path, reader.errorString()));
        continue;
      }
      meta[QStringLiteral("format")] = QString::fromLatin1(format);
      meta[QStringLiteral("width")] = image.width();
      meta[QStringLiteral("height")] = image.height();
      QImage thumb = image.scaled(kThumbnailSide, kThumbnailSide, Qt::KeepAspectRatio, Qt::SmoothTransformation);
      // Thumbnails are plain sRGB: convert once here and store no ICC profile in every PNG.
      if (thumb.colorSpace().isValid() && thumb.colorSpace() != QColorSpace(QColorSpace::SRgb))
        thumb.convertToColorSpace(QColorSpace(QColorSpace::SRgb));
      thumb.setColorSpace(QColorSpace());
      QByteArray png;
      QBuffer buffer(&png);
      buffer.open(QIODevice::WriteOnly);
      thumb.save(&buffer, "PNG");
      sample.thumbnailPng.assign(png.begin(), png.end());
    }
    sample.metadataJson = compactJson(meta);
    samples.push_back(std::move(sample));
  }
  return samples;
}

} // namespace tpuc::ui
