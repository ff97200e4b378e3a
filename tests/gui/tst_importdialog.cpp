// The import dialog: ONNX inputs read from real models, dynamic dims to fix, and a dropped model
// reaching the project with the dialog's settings (one undo step). Uses the example project's model.
#include "ui/ImportDialog.h"
#include "ui/MainWindow.h"
#include "ui/ModelInputs.h"
#include "ui/StudioContext.h"

#include <QApplication>
#include <QDir>
#include <QDropEvent>
#include <QFileInfo>
#include <QLabel>
#include <QMimeData>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace tpuc;
using namespace tpuc::ui;

namespace {
QString exampleModel() {
  return QFileInfo(qEnvironmentVariable("TPUC_EXAMPLE_PROJECT")).absolutePath() +
         "/models/ch_ppocr_mobile_v2.0_cls_infer.onnx";
}
const char *kConvModel = "/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding/model.onnx";
} // namespace

class TestImportDialog : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY2(QFileInfo::exists(exampleModel()), qPrintable(exampleModel()));
    QVERIFY2(QFileInfo::exists(kConvModel), "libonnx-testdata is installed by scripts/setup.sh");
  }
  void readsInputsOfRealModels();
  void rejectsWhatIsNotAModel();
  void droppedModelReachesTheProject();
  void randomTestInputOfAModel();
};

void TestImportDialog::readsInputsOfRealModels() {
  auto cls = readOnnxInputsFromFile(exampleModel().toStdString());
  QVERIFY2(cls, cls.error().c_str());
  QCOMPARE(cls->size(), std::size_t(1));
  QCOMPARE((*cls)[0].name, std::string("x"));
  QCOMPARE(elemTypeName((*cls)[0].elemType), std::string("float32"));
  QCOMPARE((*cls)[0].dims, (std::vector<std::int64_t>{-1, 3, -1, -1}));
  QCOMPARE((*cls)[0].dimParams[0], std::string("p2o.DynamicDimension.0"));
  QCOMPARE((*cls)[0].dimParams[1], std::string());
  auto conv = readOnnxInputsFromFile(kConvModel);
  QVERIFY2(conv, conv.error().c_str());
  QCOMPARE(conv->size(), std::size_t(2));
  QCOMPARE((*conv)[0].name, std::string("x"));
  QCOMPARE((*conv)[0].dims, (std::vector<std::int64_t>{1, 1, 7, 5}));
  QCOMPARE((*conv)[1].name, std::string("W"));
  QCOMPARE((*conv)[1].dims, (std::vector<std::int64_t>{1, 1, 3, 3}));
}

// The test input a project without data deploys with: the project's shapes fix the dynamic dims, floats
// are normal(0, 1) and the same for the same seed, integers 0; a dim left dynamic is refused by name.
void TestImportDialog::randomTestInputOfAModel() {
  auto cls = readOnnxInputsFromFile(exampleModel().toStdString());
  QVERIFY2(cls, cls.error().c_str());
  QCOMPARE(parseInputShapes("[[1,3,48,192]]"), (std::vector<std::vector<std::int64_t>>{{1, 3, 48, 192}}));
  QVERIFY(parseInputShapes("not json").empty());
  auto npz = randomTestInputs(*cls, parseInputShapes("[[1,3,48,192]]"), 7);
  QVERIFY2(npz, npz.error().c_str());
  QCOMPARE(npz->names(), std::vector<std::string>{"x"});
  const Tensor &x = npz->get("x");
  QCOMPARE(x.dtype(), DType::F32);
  QCOMPARE(x.shape(), (std::vector<std::int64_t>{1, 3, 48, 192}));
  double sum = 0, squares = 0;
  for (float v : x.values<float>()) {
    sum += v;
    squares += double(v) * v;
  }
  const double n = double(x.numElements()), mean = sum / n, variance = squares / n - mean * mean;
  QVERIFY2(std::abs(mean) < 0.05 && std::abs(variance - 1) < 0.05,
           qPrintable(QString("mean %1 variance %2").arg(mean).arg(variance)));
  QCOMPARE(randomTestInputs(*cls, parseInputShapes("[[1,3,48,192]]"), 7)->get("x"), x);
  QVERIFY(!(randomTestInputs(*cls, parseInputShapes("[[1,3,48,192]]"), 8)->get("x") == x));
  // The model's own dims with a dynamic batch of 1: H and W stay dynamic, and the error says which input.
  auto dynamic = randomTestInputs(*cls, {}, 7);
  QVERIFY(!dynamic);
  QVERIFY2(QString::fromStdString(dynamic.error()).contains("input 'x' has a dynamic shape"),
           dynamic.error().c_str());
  // Integer inputs are zeros of their type.
  ModelInput ids{"ids", 7, {1, -1}, {"", "seq"}};
  auto tokens = randomTestInputs({ids}, {{1, 16}}, 7);
  QVERIFY2(tokens, tokens.error().c_str());
  QCOMPARE(tokens->get("ids").dtype(), DType::I64);
  for (std::int64_t v : tokens->get("ids").values<std::int64_t>())
    QCOMPARE(v, std::int64_t{0});
  QVERIFY(!randomTestInputs({ModelInput{"s", 8, {1}, {""}}}, {}, 7)); // strings
}

void TestImportDialog::rejectsWhatIsNotAModel() {
  QTemporaryDir dir;
  QFile text(dir.filePath("notes.onnx"));
  QVERIFY(text.open(QIODevice::WriteOnly));
  text.write("this is not a protobuf \xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff");
  text.close();
  auto notAModel = readOnnxInputsFromFile(text.fileName().toStdString());
  QVERIFY(!notAModel);
  QVERIFY2(QString::fromStdString(notAModel.error()).startsWith(text.fileName() + ": "),
           notAModel.error().c_str());
  // A truncated real model: every prefix fails cleanly or reads, never crashes.
  QFile model(exampleModel());
  QVERIFY(model.open(QIODevice::ReadOnly));
  const QByteArray bytes = model.readAll();
  for (qsizetype cut : {qsizetype(1), qsizetype(10), qsizetype(100), bytes.size() / 3, bytes.size() - 1})
    (void)readOnnxInputs(reinterpret_cast<const std::uint8_t *>(bytes.constData()),
                         static_cast<std::size_t>(cut));
  // Random byte flips in the model's first kilobytes (where the graph inputs are) never crash either.
  QByteArray mutated = bytes;
  for (int round = 0; round < 300; ++round) {
    mutated = bytes;
    for (int flip = 0; flip < 4; ++flip)
      mutated[QRandomGenerator::global()->bounded(qMin<qsizetype>(mutated.size(), 4096))] =
          static_cast<char>(QRandomGenerator::global()->generate());
    (void)readOnnxInputs(reinterpret_cast<const std::uint8_t *>(mutated.constData()),
                         static_cast<std::size_t>(mutated.size()));
  }
  ImportDialog dialog(text.fileName(), {});
  QVERIFY(!dialog.loadError().isEmpty());
  dialog.accept();
  QCOMPARE(dialog.result(), int(QDialog::Rejected));
}

void TestImportDialog::droppedModelReachesTheProject() {
  QTemporaryDir dir;
  StudioContext context;
  MainWindow window(&context);
  window.startup(QString());
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(exampleModel())});
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&window, &enter);
  QVERIFY(enter.isAccepted());
  QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&window, &drop);
  auto *dialog = window.findChild<ImportDialog *>();
  QVERIFY(dialog);
  QVERIFY(QTest::qWaitForWindowExposed(dialog));
  QTableWidget *table = dialog->inputsTable();
  QCOMPARE(table->rowCount(), 1);
  QCOMPARE(table->item(0, ImportDialog::NameColumn)->text(), QString("x"));
  QCOMPARE(table->item(0, ImportDialog::TypeColumn)->text(), QString("float32"));
  // The batch is fixed to 1; height and width are the model's dynamic dims, named, to be fixed.
  QCOMPARE(table->item(0, ImportDialog::ShapeColumn)->text(),
           QString("1,3,p2o.DynamicDimension.1,p2o.DynamicDimension.2"));
  QDir().mkpath(TPUC_SCREENSHOT_DIR);
  QVERIFY(dialog->grab().save(QString(TPUC_SCREENSHOT_DIR) + "/import-dialog.png"));
  dialog->accept(); // refused: dynamic dims left
  QVERIFY(dialog->isVisible());
  QString shown;
  for (QLabel *label : dialog->findChildren<QLabel *>())
    if (label->isVisible())
      shown += label->text() + "\n";
  QVERIFY2(shown.contains("Input 'x': dimension 2 ('p2o.DynamicDimension.1') must be a positive number"),
           qPrintable(shown));
  table->item(0, ImportDialog::ShapeColumn)->setText("1,3,48,192");
  QSignalSpy imported(&window, &MainWindow::modelImported);
  dialog->accept();
  QVERIFY(imported.wait(10000));
  QCOMPARE(imported.at(0).at(0).toBool(), true);
  QCOMPARE(QString::fromStdString(context.project().model.path), exampleModel());
  QVERIFY(QString::fromStdString(context.project().model.contentHash).startsWith("sha256:491843a3"));
  QCOMPARE(context.project().importSettings.inputShapes, std::string("[[1,3,48,192]]"));
  context.undoStack()->undo(); // model and settings together
  QVERIFY(context.project().model.path.empty());
  QCOMPARE(context.project().importSettings.inputShapes, std::string());
}

QTEST_MAIN(TestImportDialog)
#include "tst_importdialog.moc"
