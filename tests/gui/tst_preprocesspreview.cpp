// The preprocessing preview (issue 21): its tensors equal `tpuc transform --test_input`'s <name>_in_f32.npz
// bit for bit on real photos under several settings (the real engine, run from the test); the warnings fire
// on generated mistakes and stay quiet on a normal sample; bad samples give one line; the preview follows the
// import settings through the context; a newer sample supersedes an older one; the dataset view's pane, on
// the example project too (its real PaddleOCR model and settings, again against the CLI); screenshots in
// light and dark palettes.
#include "DatasetGen.h"
#include "Screenshots.h"

#include "tpuc/Dataset/Scan.h"
#include "tpuc/Dataset/Statistics.h"
#include "tpuc/Testing/TestAssets.h"
#include "ui/ModelInputs.h"
#include "ui/StudioContext.h"
#include "ui/jobs/EngineClient.h"
#include "ui/jobs/TransformJob.h"
#include "ui/views/DatasetView.h"
#include "ui/views/PreprocessPreview.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QListView>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <cstring>
#include <set>

using namespace tpuc;
using namespace tpuc::ui;

namespace {

/// Waits until the preview has shown the result of everything asked of it.
#define WAIT_FOR_PREVIEW(preview) QTRY_VERIFY_WITH_TIMEOUT(!(preview).isBusy(), 60000)

using tpuc::ui::guitest::screenshotDir;

QPalette darkPalette() {
  QPalette p;
  p.setColor(QPalette::Window, QColor(40, 41, 45));
  p.setColor(QPalette::WindowText, QColor(225, 226, 228));
  p.setColor(QPalette::Base, QColor(30, 31, 34));
  p.setColor(QPalette::AlternateBase, QColor(38, 39, 43));
  p.setColor(QPalette::Text, QColor(225, 226, 228));
  p.setColor(QPalette::Button, QColor(50, 51, 55));
  p.setColor(QPalette::ButtonText, QColor(225, 226, 228));
  p.setColor(QPalette::Highlight, QColor(80, 160, 255));
  return p;
}

project::ImportSettings imagenet(const std::string &pixelFormat = "rgb") {
  project::ImportSettings s;
  s.mean = {123.675, 116.28, 103.53};
  s.scale = {0.0171, 0.0175, 0.0174};
  s.pixelFormat = pixelFormat;
  return s;
}

std::set<dataset::SampleWarningKind> kinds(const PreviewResult &result) {
  std::set<dataset::SampleWarningKind> out;
  for (const dataset::SampleWarning &w : result.warnings)
    out.insert(w.kind);
  return out;
}

QString texts(const PreviewResult &result) {
  QStringList out;
  for (const dataset::SampleWarning &w : result.warnings)
    out << QString::fromStdString(w.text);
  return out.join('\n');
}

/// Equal names in order, and every tensor equal in dtype, shape and bytes.
QString tensorDifference(const NpzFile &a, const NpzFile &b) {
  if (a.names() != b.names())
    return QStringLiteral("the arrays differ: %1 vs %2")
        .arg(QString::fromStdString(a.names().empty() ? "" : a.names().front()),
             QString::fromStdString(b.names().empty() ? "" : b.names().front()));
  for (const std::string &name : a.names()) {
    const Tensor &x = a.get(name), &y = b.get(name);
    if (x.dtype() != y.dtype() || x.shape() != y.shape())
      return QStringLiteral("'%1': dtype or shape differ").arg(QString::fromStdString(name));
    if (x.byteSize() != y.byteSize() || std::memcmp(x.data(), y.data(), x.byteSize()) != 0) {
      auto xv = x.toDoubles(), yv = y.toDoubles();
      for (size_t i = 0; i < xv.size(); ++i)
        if (std::memcmp(&xv[i], &yv[i], sizeof(double)) != 0)
          return QStringLiteral("'%1': element %2 is %3 here and %4 there")
              .arg(QString::fromStdString(name))
              .arg(i)
              .arg(xv[i], 0, 'g', 9)
              .arg(yv[i], 0, 'g', 9);
      return QStringLiteral("'%1': bytes differ").arg(QString::fromStdString(name));
    }
  }
  return {};
}

} // namespace

class TestPreprocessPreview : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase();
  void previewEqualsTheCliTensorBitForBit();
  void warningsFireOnMistakesOnly();
  void badSamplesGiveOneLine();
  void followsImportSettingsLive();
  void newerSampleSupersedesOlder();
  void datasetViewShowsThePreview();
  void exampleProjectAgainstTheCli();

private:
  /// A generated ONNX model with one float input `name` of `dims` (a name makes a dimension dynamic).
  QString makeModel(const QString &file, const QString &name, const QString &dims);
  /// A fetched photo (scripts/assets/images.sh).
  QString photo(const QString &name) const;
  std::vector<ModelInput> inputsOf(const QString &model);

  QTemporaryDir m_dir;
  QString m_generated; ///< a DatasetGen folder: reddish images, a BGR copy, tensors with a 0..1 one
  tpuc::testing::QualityFolder m_planted;
  dataset::DatasetIndex m_index;
};

void TestPreprocessPreview::initTestCase() {
  QVERIFY(m_dir.isValid());
  m_generated = m_dir.filePath("generated");
  m_planted = tpuc::testing::generateQualityFolder(m_generated.toStdString());
  auto scanned = dataset::scanDataset(m_generated.toStdString());
  QVERIFY2(bool(scanned), scanned ? "" : llvm::toString(scanned.takeError()).c_str());
  m_index = std::move(scanned->index);
}

QString TestPreprocessPreview::makeModel(const QString &file, const QString &name, const QString &dims) {
  const QString path = m_dir.filePath(file);
  QProcess python;
  python.start("/usr/bin/python3", {TPUC_IMAGE_MODEL_SCRIPT, path, name, dims});
  if (!python.waitForFinished(60000) || python.exitCode() != 0)
    qWarning("make_image_model.py: %s", python.readAllStandardError().constData());
  return path;
}

QString TestPreprocessPreview::photo(const QString &name) const {
  return QDir(QString::fromStdString(testsupport::assetsDir())).filePath("images/" + name);
}

std::vector<ModelInput> TestPreprocessPreview::inputsOf(const QString &model) {
  auto inputs = readOnnxInputsFromFile(model.toStdString());
  if (!inputs)
    qWarning("%s", inputs.error().c_str());
  return inputs ? *inputs : std::vector<ModelInput>{};
}

void TestPreprocessPreview::previewEqualsTheCliTensorBitForBit() {
#ifndef TPUC_ENGINE
  QSKIP("the tpuc target is not part of this build");
#else
  struct Case {
    const char *name, *dims, *photo;
    project::ImportSettings settings;
  };
  std::vector<Case> cases;
  cases.push_back({"rgb-nchw-imagenet", "1,3,224,224", "dog.jpg", imagenet()});
  {
    project::ImportSettings s;
    s.pixelFormat = "bgr";
    s.keepAspectRatio = true;
    s.padValue = 114;
    s.mean = {0};
    s.scale = {1 / 255.0};
    cases.push_back({"bgr-letterbox-pad114", "1,3,160,160", "horses.jpg", s});
  }
  {
    // Resize above the input and centre crop; the batch comes from the input shapes (the model's is dynamic).
    project::ImportSettings s;
    s.inputShapes = "[[2,3,64,64]]";
    s.pixelFormat = "bgr";
    s.resizeDims = {80, 72};
    s.mean = {104, 117, 123};
    cases.push_back({"bgr-resize-crop-batch2", "N,3,64,64", "eagle.jpg", s});
  }
  {
    project::ImportSettings s;
    s.channelFormat = "nhwc";
    s.pixelFormat = "rgb";
    s.keepAspectRatio = true;
    s.mean = {127.5};
    s.scale = {0.0078125};
    cases.push_back({"rgb-nhwc-letterbox", "1,96,128,3", "astronaut.png", s});
  }
  {
    project::ImportSettings s;
    s.pixelFormat = "gray";
    s.keepAspectRatio = true;
    s.padValue = 255;
    s.scale = {1 / 255.0};
    cases.push_back({"gray-letterbox", "1,1,64,96", "grace_hopper.jpg", s});
  }
  {
    project::ImportSettings s;
    s.pixelFormat = "rgba";
    s.mean = {10, 20, 30, 40};
    s.scale = {0.5, 0.25, 2, 1};
    cases.push_back({"rgba-per-channel", "1,4,48,64", "chelsea.png", s});
  }
  for (const Case &c : cases) {
    const QString name = QString::fromLatin1(c.name);
    const QString image = photo(c.photo);
    QVERIFY2(QFileInfo(image).isFile(), qPrintable(image + ": " + testsupport::kFetchHint));
    const QString model = makeModel(name + ".onnx", "image", c.dims);
    // The CLI, from the same settings through the transform request Run ▸ Transform Model builds.
    auto request = transformRequest(c.settings);
    QVERIFY2(request, request.error().c_str());
    const QString out = m_dir.filePath("cli-" + name);
    QVERIFY(QDir().mkpath(out));
    request->modelName = name.toStdString();
    request->modelDef = model.toStdString();
    request->mlir = (out + "/" + name + ".top.mlir").toStdString();
    request->testInput = {image.toStdString()};
    EngineArgs args = engineArguments(*request);
    QVERIFY2(args.error.isEmpty(), qPrintable(args.error));
    QProcess tpuc;
    tpuc.setWorkingDirectory(out);
    tpuc.start(TPUC_ENGINE, args.args);
    QVERIFY(tpuc.waitForFinished(180000));
    QVERIFY2(tpuc.exitCode() == 0, qPrintable(name + ": " + tpuc.readAllStandardError()));
    auto cli = NpzFile::tryRead((out + "/" + name + "_in_f32.npz").toStdString());
    QVERIFY2(cli, cli.error().c_str());

    PreprocessPreview preview;
    preview.resize(600, 1000);
    preview.setModelInputs(inputsOf(model));
    preview.setSettings(c.settings);
    preview.setSample({image});
    WAIT_FOR_PREVIEW(preview);
    const PreviewResult &r = preview.result();
    QVERIFY2(r.error.isEmpty(), qPrintable(name + ": " + r.error));
    QString difference = tensorDifference(r.tensors, *cli);
    QVERIFY2(difference.isEmpty(), qPrintable(name + ": " + difference));
    // A real picture, not a constant: every colour channel varies (alpha is 255 throughout).
    QCOMPARE(r.inputs.size(), std::size_t(1));
    for (const PreviewChannel &channel : r.inputs[0].channels)
      QVERIFY2(!channel.plane.isNull() && (channel.statistics.std > 0 || channel.name == "A"),
               qPrintable(name + " " + channel.name));
    QVERIFY(!r.inputs[0].source.isNull() && !r.inputs[0].resized.isNull());
    if (name == "rgb-nchw-imagenet")
      QCOMPARE(preview.grab().save(screenshotDir() + "/preprocess-preview-imagenet.png"), true);
    if (name == "gray-letterbox") {
      preview.setColorMap(PreprocessPreview::ColorMap::Gray);
      QCOMPARE(preview.grab().save(screenshotDir() + "/preprocess-preview-gray-letterbox.png"), true);
    }
    if (name == "rgb-nhwc-letterbox") {
      preview.resize(560, 760);
      preview.setPalette(darkPalette());
      QCOMPARE(preview.grab().save(screenshotDir() + "/preprocess-preview-nhwc-dark.png"), true);
    }
  }
#endif
}

void TestPreprocessPreview::warningsFireOnMistakesOnly() {
  const dataset::DatasetStatistics statistics = dataset::datasetStatistics(m_index);
  QVERIFY(statistics.find(dataset::kImageClass));
  auto path = [&](const std::string &relative) {
    return QDir(m_generated).filePath(QString::fromStdString(relative));
  };
  const std::vector<ModelInput> image{{"x", 1, {1, 3, 48, 64}, {}}};
  const std::vector<ModelInput> tensor{{"x", 1, {1, 3, 8, 8}, {}}};

  PreprocessPreview preview;
  preview.resize(560, 900);
  preview.setDatasetStatistics(statistics);
  preview.setModelInputs(image);
  preview.setSettings(imagenet());
  // A normal sample under the right settings: nothing to say.
  preview.setSample({path(m_planted.swappedOriginal)});
  WAIT_FOR_PREVIEW(preview);
  QVERIFY2(preview.result().error.isEmpty(), qPrintable(preview.result().error));
  QVERIFY2(preview.result().warnings.empty(), qPrintable(texts(preview.result())));
  auto *warningLabel = preview.findChild<QLabel *>("previewWarnings");
  QVERIFY(warningLabel);
  QVERIFY(warningLabel->isHidden());

  // Its BGR-stored copy.
  preview.setSample({path(m_planted.swapped)});
  WAIT_FOR_PREVIEW(preview);
  QCOMPARE(kinds(preview.result()), std::set{dataset::SampleWarningKind::SwappedFile});
  QVERIFY2(texts(preview.result()).startsWith("Red and blue are exchanged in root_swapped.png"),
           qPrintable(texts(preview.result())));
  QVERIFY(!warningLabel->isHidden());
  QVERIFY(warningLabel->text().contains("Red and blue are exchanged"));

  // torchvision's 0-1 numbers typed in as they are, on the normal sample.
  project::ImportSettings units = imagenet();
  units.mean = {0.485, 0.456, 0.406};
  units.scale = {4.367, 4.464, 4.444};
  preview.setSettings(units);
  preview.setSample({path(m_planted.swappedOriginal)});
  WAIT_FOR_PREVIEW(preview);
  QCOMPARE(kinds(preview.result()), std::set{dataset::SampleWarningKind::UnitMeanScale});
  QVERIFY2(texts(preview.result()).contains("set mean to 123.7, 116.3, 103.5"),
           qPrintable(texts(preview.result())));
  // Both mistakes at once, for the screenshot.
  preview.setSample({path(m_planted.swapped)});
  WAIT_FOR_PREVIEW(preview);
  QCOMPARE(kinds(preview.result()),
           (std::set{dataset::SampleWarningKind::UnitMeanScale, dataset::SampleWarningKind::SwappedFile}));
  QCOMPARE(preview.grab().save(screenshotDir() + "/preprocess-preview-warnings.png"), true);

  // ImageNet's RGB mean with pixel_format bgr, judged by the reddish dataset.
  preview.setSettings(imagenet("bgr"));
  preview.setSample({path(m_planted.swappedOriginal)});
  WAIT_FOR_PREVIEW(preview);
  QCOMPARE(kinds(preview.result()), std::set{dataset::SampleWarningKind::ChannelOrder});
  QVERIFY2(texts(preview.result()).contains("set pixel_format to rgb"), qPrintable(texts(preview.result())));

  // Tensor files are taken as they are: the 0..1 one against settings that keep images 0..255, a normal
  // one quiet.
  preview.setModelInputs(tensor);
  preview.setSettings(project::ImportSettings{});
  preview.setSample({path(m_planted.scaledTensor)});
  WAIT_FOR_PREVIEW(preview);
  QCOMPARE(kinds(preview.result()),
           (std::set{dataset::SampleWarningKind::TensorRange, dataset::SampleWarningKind::RescaledFile}));
  QVERIFY2(texts(preview.result()).contains("255 times smaller"), qPrintable(texts(preview.result())));
  preview.setSample({path("tensors/t0.npy")});
  WAIT_FOR_PREVIEW(preview);
  QVERIFY2(preview.result().error.isEmpty(), qPrintable(preview.result().error));
  QVERIFY2(preview.result().warnings.empty(), qPrintable(texts(preview.result())));
  QVERIFY(preview.result().inputs[0].source.isNull()); // a tensor file has no picture
  QCOMPARE(preview.result().inputs[0].channels.size(), std::size_t(3));
}

void TestPreprocessPreview::badSamplesGiveOneLine() {
  auto path = [&](const std::string &relative) {
    return QDir(m_generated).filePath(QString::fromStdString(relative));
  };
  PreprocessPreview preview;
  auto *errorLabel = preview.findChild<QLabel *>("previewError");
  QVERIFY(errorLabel);
  preview.setModelInputs({{"x", 1, {1, 3, 48, 64}, {}}});
  preview.setSettings(imagenet());
  struct Bad {
    QStringList files;
    project::ImportSettings settings;
    std::vector<ModelInput> inputs;
    QString expected;
  };
  project::ImportSettings gray = imagenet();
  gray.pixelFormat = "gray";
  gray.mean.clear();
  gray.scale.clear();
  project::ImportSettings badShapes = imagenet();
  badShapes.inputShapes = "[[1,3,48";
  const std::vector<ModelInput> rgb{{"x", 1, {1, 3, 48, 64}, {}}};
  const std::vector<Bad> bad = {
      {{path("cats/broken.jpg")}, imagenet(), rgb, "cannot decode image"},
      {{path("dogs/truncated.png")}, imagenet(), rgb, "truncated.png"},
      {{m_dir.filePath("missing.png")}, imagenet(), rgb, "missing.png"},
      {{path(m_planted.swappedOriginal)}, gray, rgb, "pixel_format gray needs 1 channels"},
      {{path("tensors/t0.npy")}, imagenet(), rgb, "does not fit input 'x'"},
      {{path(m_planted.swappedOriginal), path(m_planted.swapped)}, imagenet(), rgb, "2 files for 1 inputs"},
      {{path(m_planted.swappedOriginal)}, badShapes, rgb, "are not shapes like [[1,3,224,224]]"},
      {{path(m_planted.swappedOriginal)},
       imagenet(),
       {{"x", 1, {-1, 3, 48, 64}, {"batch", "", "", ""}}},
       "input 'x' has a dynamic shape [batch, 3, 48, 64]; set the input shapes"},
  };
  for (const Bad &b : bad) {
    preview.setModelInputs(b.inputs);
    preview.setSettings(b.settings);
    preview.setSample(b.files);
    WAIT_FOR_PREVIEW(preview);
    const QString error = preview.result().error;
    QVERIFY2(error.contains(b.expected), qPrintable(b.expected + " not in: " + error));
    QVERIFY2(!error.contains('\n'), qPrintable(error));
    QVERIFY(!errorLabel->isHidden());
    QCOMPARE(errorLabel->text(), error);
    QVERIFY(preview.result().inputs.empty());
    QVERIFY(preview.result().tensors.names().empty());
  }
  preview.resize(520, 300);
  QCOMPARE(preview.grab().save(screenshotDir() + "/preprocess-preview-error.png"), true);
  // A good sample again clears the error.
  preview.setModelInputs(rgb);
  preview.setSettings(imagenet());
  preview.setSample({path(m_planted.swappedOriginal)});
  WAIT_FOR_PREVIEW(preview);
  QVERIFY(preview.result().error.isEmpty());
  QVERIFY(errorLabel->isHidden());
}

void TestPreprocessPreview::followsImportSettingsLive() {
  const QString model = makeModel("live.onnx", "image", "1,3,48,64");
  StudioContext context;
  project::ModelRef ref;
  ref.path = model.toStdString();
  ref.format = "onnx";
  context.setModel(ref);
  project::Dataset set{
      0, "generated", {{QDir(m_generated).filePath("cats/cat13.png").toStdString(), "{}", {}}}, m_index};
  const qint64 datasetId = context.addDataset(set);
  project::ImportSettings settings;
  settings.pixelFormat = "rgb";
  settings.mean = {100};
  context.setImportSettings(settings);

  PreprocessPreview preview;
  QSignalSpy updated(&preview, &PreprocessPreview::previewUpdated);
  preview.followProject(&context, datasetId);
  preview.setSample({QDir(m_generated).filePath("cats/cat13.png")});
  // The model's inputs are read off the UI thread; the first preview follows.
  QTRY_VERIFY_WITH_TIMEOUT(updated.count() == 1 && !preview.isBusy(), 60000);
  QVERIFY2(preview.result().error.isEmpty(), qPrintable(preview.result().error));
  const Tensor first = preview.result().tensors.get("image");
  QCOMPARE(first.shape(), (std::vector<int64_t>{1, 3, 48, 64}));
  // The dataset's statistics came from its index.
  bool statisticsShown = false;
  for (QLabel *label : preview.findChildren<QLabel *>())
    statisticsShown |=
        label->text().startsWith("Compared with the dataset's") && label->text().contains("images");
  QVERIFY(statisticsShown);

  // The mean moves by 10: every value moves by -10, exactly (integers minus integers in float).
  settings.mean = {110};
  int before = updated.count();
  context.setImportSettings(settings);
  WAIT_FOR_PREVIEW(preview);
  QCOMPARE(updated.count(), before + 1);
  const Tensor second = preview.result().tensors.get("image");
  auto a = first.values<float>(), b = second.values<float>();
  for (size_t i = 0; i < a.size(); ++i)
    QVERIFY2(b[i] == a[i] - 10, qPrintable(QString("element %1: %2 vs %3").arg(i).arg(b[i]).arg(a[i])));
  // pixel_format bgr exchanges the first and third channel planes.
  settings.pixelFormat = "bgr";
  context.setImportSettings(settings);
  WAIT_FOR_PREVIEW(preview);
  const Tensor third = preview.result().tensors.get("image");
  auto c = third.values<float>();
  const size_t plane = 48 * 64;
  for (size_t i = 0; i < plane; ++i) {
    QCOMPARE(c[i], b[2 * plane + i]);
    QCOMPARE(c[plane + i], b[plane + i]);
    QCOMPARE(c[2 * plane + i], b[i]);
  }
  QCOMPARE(preview.result().inputs[0].channels[0].name, QString("B"));
  // Undo is a change of the settings too.
  context.undoStack()->undo();
  WAIT_FOR_PREVIEW(preview);
  QCOMPARE(std::memcmp(preview.result().tensors.get("image").data(), second.data(), second.byteSize()), 0);
  // A change elsewhere in the project does not recompute.
  before = updated.count();
  context.setNotes("unrelated");
  QTest::qWait(50);
  QVERIFY(!preview.isBusy());
  QCOMPARE(updated.count(), before);
}

void TestPreprocessPreview::newerSampleSupersedesOlder() {
  PreprocessPreview preview;
  preview.setModelInputs({{"x", 1, {1, 3, 48, 64}, {}}});
  preview.setSettings(imagenet());
  QSignalSpy updated(&preview, &PreprocessPreview::previewUpdated);
  QStringList files;
  for (int i = 10; i < 18; ++i)
    files << QDir(m_generated).filePath(QString("cats/cat%1.png").arg(i));
  // Scrolling through eight samples in one go: one computation runs, the ones in between are never started
  // or are dropped, and only the last sample is shown.
  for (const QString &f : files)
    preview.setSample({f});
  QVERIFY(preview.isBusy());
  WAIT_FOR_PREVIEW(preview);
  QCOMPARE(updated.count(), 1);
  QCOMPARE(preview.result().inputs.size(), std::size_t(1));
  QCOMPARE(preview.result().inputs[0].file, files.back());
}

void TestPreprocessPreview::datasetViewShowsThePreview() {
  const QString model = makeModel("view.onnx", "image", "1,3,48,64");
  StudioContext context;
  project::ModelRef ref;
  ref.path = model.toStdString();
  ref.format = "onnx";
  context.setModel(ref);
  project::ImportSettings settings = imagenet();
  context.setImportSettings(settings);
  project::Dataset set{0, "generated", {}, m_index};
  for (const char *f : {"cats/cat13.png", "cats/cat14.png", "root_swapped.png", "tensors/t0.npy"})
    set.samples.push_back({QDir(m_generated).filePath(f).toStdString(), "{}", {}});
  const qint64 id = context.addDataset(set);
  DatasetView view(&context, id);
  view.resize(1100, 760);
  auto *preview = view.findChild<PreprocessPreview *>();
  QVERIFY(preview);
  auto shows = [&](const QString &file) {
    return !preview->isBusy() && preview->result().inputs.size() == 1 &&
           QFileInfo(preview->result().inputs[0].file).fileName() == file;
  };
  QVERIFY(view.selectFile(QDir(m_generated).filePath("root_swapped.png")));
  // The model's inputs are read off the UI thread; the preview of the selected sample follows.
  QTRY_VERIFY_WITH_TIMEOUT(shows("root_swapped.png"), 60000);
  QCOMPARE(kinds(preview->result()), std::set{dataset::SampleWarningKind::SwappedFile});
  QCOMPARE(view.grab().save(screenshotDir() + "/dataset-view-preprocess-preview.png"), true);
  QVERIFY(view.selectFile(QDir(m_generated).filePath("cats/cat13.png")));
  QTRY_VERIFY_WITH_TIMEOUT(shows("cat13.png"), 60000);
  QVERIFY(preview->result().warnings.empty());
}

void TestPreprocessPreview::exampleProjectAgainstTheCli() {
  const QString example = qEnvironmentVariable("TPUC_EXAMPLE_PROJECT");
  if (example.isEmpty() || !QFileInfo(example).isFile())
    QSKIP("the example project is not built (ninja tpuc-example-project)");
  StudioContext context;
  QString error;
  QVERIFY2(context.openProject(example, &error, StudioContext::OpenMode::ReadOnlyIfLocked),
           qPrintable(error));
  const project::Project &p = context.project();
  QVERIFY(p.datasets.size() >= 2);
  // The photos dataset: a photo letterboxed into the classifier's 48x192 BGR input.
  DatasetView view(&context, p.datasets[1].id);
  view.resize(1200, 720);
  auto *preview = view.findChild<PreprocessPreview *>();
  QVERIFY(preview);
  const QString sample = QString::fromStdString(p.datasets[1].samples.front().path);
  view.view()->setCurrentIndex(view.view()->model()->index(0, 0));
  QTRY_VERIFY_WITH_TIMEOUT(!preview->isBusy() && preview->result().inputs.size() == 1, 60000);
  const PreviewResult &r = preview->result();
  QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
  QCOMPARE(r.inputs[0].shape, (std::vector<int64_t>{1, 3, 48, 192}));
  QCOMPARE(r.inputs[0].layout, QString("NCHW · bgr"));
  QCOMPARE(r.inputs[0].channels[0].name, QString("B"));
  QCOMPARE(view.grab().save(screenshotDir() + "/dataset-view-preprocess-preview-example.png"), true);
#ifdef TPUC_ENGINE
  // The same sample through tpuc transform with the project's settings and its real model.
  auto request = transformRequest(p.importSettings);
  QVERIFY2(request, request.error().c_str());
  const QString out = m_dir.filePath("cli-example");
  QVERIFY(QDir().mkpath(out));
  request->modelName = "example";
  request->modelDef = p.model.path;
  request->mlir = (out + "/example.top.mlir").toStdString();
  request->testInput = {sample.toStdString()};
  EngineArgs args = engineArguments(*request);
  QVERIFY2(args.error.isEmpty(), qPrintable(args.error));
  QProcess tpuc;
  tpuc.setWorkingDirectory(out);
  tpuc.start(TPUC_ENGINE, args.args);
  QVERIFY(tpuc.waitForFinished(180000));
  QVERIFY2(tpuc.exitCode() == 0, tpuc.readAllStandardError().constData());
  auto cli = NpzFile::tryRead((out + "/example_in_f32.npz").toStdString());
  QVERIFY2(cli, cli.error().c_str());
  const QString difference = tensorDifference(r.tensors, *cli);
  QVERIFY2(difference.isEmpty(), qPrintable(difference));
#endif
}

QTEST_MAIN(TestPreprocessPreview)
#include "tst_preprocesspreview.moc"
