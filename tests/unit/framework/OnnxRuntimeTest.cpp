//===- OnnxRuntimeTest.cpp - ONNX Runtime runner on small generated models ---===//
//
// make_models.py (onnx.helper, run at test time) writes a two-input model, the same with external
// data, and numpy values of every tensor. Also checks the loader's search order in a child process
// (this binary with --ort-probe) and the one-line errors.
//
//===----------------------------------------------------------------------===//

#include "FrameworkTestUtil.h"

#include <array>
#include <cstdio>
#include <fstream>

using namespace tpuc;
using namespace tpuc::sim::ort;
using namespace tpuc::sim::ort::test;

namespace {

std::string gSelf; // this executable, for the loader probe

class TinyModel : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    dir = new TempDir();
    std::string cmd = std::string(TPUC_PYTHON) + " " + TPUC_MAKE_MODELS + " " + dir->path();
    generated = std::system(cmd.c_str()) == 0;
  }
  static void TearDownTestSuite() {
    delete dir;
    dir = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(generated) << "make_models.py failed (needs /usr/bin/python3 with python3-onnx)";
    TPUC_REQUIRE_ORT();
    ref = NpzFile::read(dir->file("tiny_ref.npz"));
  }
  std::map<std::string, Tensor> inputs() const { return {{"x", ref.get("x")}, {"ids", ref.get("ids")}}; }
  static std::string model(const std::string &name) { return dir->file(name); }

  static inline TempDir *dir = nullptr;
  static inline bool generated = false;
  NpzFile ref;
};

std::string errorOf(const std::function<void()> &fn) {
  try {
    fn();
  } catch (const OrtError &e) {
    return e.what();
  }
  return "(no error)";
}

std::string runCapture(const std::string &cmd) {
  std::string out;
  if (FILE *p = popen(cmd.c_str(), "r")) {
    std::array<char, 512> buf;
    while (fgets(buf.data(), buf.size(), p))
      out += buf.data();
    pclose(p);
  }
  return out;
}

} // namespace

TEST_F(TinyModel, DescribesInputsAndOutputs) {
  auto session = Session::open(model("tiny.onnx"));
  ASSERT_EQ(session->inputs().size(), 2u);
  EXPECT_EQ(session->inputs()[0].name, "x");
  EXPECT_EQ(session->inputs()[0].dtype, DType::F32);
  EXPECT_EQ(session->inputs()[0].shape, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(session->inputs()[1].name, "ids");
  EXPECT_EQ(session->inputs()[1].dtype, DType::I64);
  EXPECT_EQ(session->inputs()[1].shape, (std::vector<int64_t>{-1})); // dynamic
  auto outs = modelOutputs(model("tiny.onnx"));
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].name, "out");
  EXPECT_EQ(outs[1].name, "ids_out");
  EXPECT_EQ(modelInputs(model("tiny.onnx")).size(), 2u);
  EXPECT_FALSE(libraryPath().empty());
  EXPECT_FALSE(version().empty());
}

TEST_F(TinyModel, RunsAndMatchesNumpy) {
  for (unsigned threads : {1u, 2u}) {
    NpzFile out = run(model("tiny.onnx"), inputs(), threads);
    ASSERT_EQ(out.names(), (std::vector<std::string>{"out", "ids_out"})); // graph output order
    for (const auto &name : out.names()) {
      ASSERT_EQ(out.get(name).shape(), ref.get(name).shape()) << name;
      Similarity s = similarity(out.get(name), ref.get(name));
      EXPECT_LE(s.maxAbsDiff, 1e-6) << name << " with " << threads << " threads";
    }
  }
}

TEST_F(TinyModel, ConvertsInputDtypes) {
  // ids as int32 and x as float64: converted to the model's int64 / float32.
  auto in = inputs();
  std::vector<int32_t> ids = {3, -1, 7};
  in["ids"] = Tensor::fromValues<int32_t>({3}, ids);
  std::vector<double> x(ref.get("x").toDoubles());
  in["x"] = Tensor::fromValues<double>({1, 4}, x);
  NpzFile out = run(model("tiny.onnx"), in);
  EXPECT_LE(similarity(out.get("out"), ref.get("out")).maxAbsDiff, 1e-6);
  EXPECT_EQ(out.get("ids_out").toDoubles(), ref.get("ids_out").toDoubles());
}

TEST_F(TinyModel, AllTensorsExposesEveryNodeOutputInNodeOrder) {
  for (const char *file : {"tiny.onnx", "tiny_ext.onnx"}) {
    NpzFile out = run(model(file), inputs(), 1, /*allTensors=*/true);
    EXPECT_EQ(out.names(), (std::vector<std::string>{"mm", "add", "relu", "out", "ids_f", "ids_out"}))
        << file;
    for (const auto &name : out.names())
      EXPECT_LE(similarity(out.get(name), ref.get(name)).maxAbsDiff, 1e-6) << file << " " << name;
  }
  // The rewritten model is a valid ONNX model with six outputs.
  std::string bytes = exposeAllTensors(model("tiny.onnx"));
  EXPECT_GT(bytes.size(), 100u);
}

TEST_F(TinyModel, ExternalDataModelRuns) {
  NpzFile out = run(model("tiny_ext.onnx"), inputs());
  EXPECT_LE(similarity(out.get("out"), ref.get("out")).maxAbsDiff, 1e-6);
}

TEST_F(TinyModel, ErrorsAreOneLineAndNameTheModel) {
  const std::string path = model("tiny.onnx");
  auto oneLine = [](const std::string &s) { return s.find('\n') == std::string::npos; };
  std::string err = errorOf([&] { run(path, {{"x", ref.get("x")}}); });
  EXPECT_NE(err.find(path + ": missing input 'ids' (inputs: x, ids)"), std::string::npos) << err;
  err = errorOf([&] {
    auto in = inputs();
    in["y"] = ref.get("x");
    run(path, in);
  });
  EXPECT_NE(err.find("no input named 'y'"), std::string::npos) << err;
  err = errorOf([&] {
    auto in = inputs();
    in["x"] = Tensor(DType::F32, {1, 5});
    run(path, in);
  });
  EXPECT_NE(err.find("input 'x' has shape (1, 5), the model takes (1, 4)"), std::string::npos) << err;
  err = errorOf([&] { run(model("nothing.onnx"), inputs()); });
  EXPECT_NE(err.find("nothing.onnx: cannot open file"), std::string::npos) << err;

  std::ofstream(model("junk.onnx")) << "this is not a protobuf\n\n\x01\x02";
  err = errorOf([&] { run(model("junk.onnx"), inputs()); });
  EXPECT_NE(err.find("junk.onnx: "), std::string::npos) << err;
  EXPECT_TRUE(oneLine(err)) << err;
  err = errorOf([&] { run(model("junk.onnx"), inputs(), 1, true); });
  EXPECT_NE(err.find("junk.onnx: "), std::string::npos) << err;
  EXPECT_TRUE(oneLine(err)) << err;

  // A truncated model.
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(model("cut.onnx"), std::ios::binary).write(bytes.data(), bytes.size() / 2);
  err = errorOf([&] { run(model("cut.onnx"), inputs()); });
  EXPECT_NE(err.find("cut.onnx: "), std::string::npos) << err;
  EXPECT_TRUE(oneLine(err)) << err;
}

TEST(OrtLoader, SearchOrderHonoursTheEnvironment) {
  TPUC_REQUIRE_ORT();
  ASSERT_FALSE(gSelf.empty());
  std::string cached = assetsDir() + "/onnxruntime/lib/libonnxruntime.so.1";
  ASSERT_TRUE(fs::exists(cached)) << cached << " missing: run scripts/fetch-assets.sh";
  // An explicit TPUC_ONNXRUNTIME wins.
  std::string out = runCapture("TPUC_ONNXRUNTIME='" + cached + "' '" + gSelf + "' --ort-probe");
  EXPECT_EQ(out, "ok " + cached + "\n");
  // A wrong TPUC_ONNXRUNTIME falls through to the asset cache named by TPUC_ASSETS.
  out = runCapture("TPUC_ONNXRUNTIME=/nonexistent/libonnxruntime.so TPUC_ASSETS='" + assetsDir() + "' '" +
                   gSelf + "' --ort-probe");
  EXPECT_EQ(out, "ok " + cached + "\n");
}

int main(int argc, char **argv) {
  gSelf = fs::absolute(argv[0]).string();
  if (argc > 1 && std::string(argv[1]) == "--ort-probe") {
    std::string why;
    bool ok = available(why);
    std::printf("%s %s\n", ok ? "ok" : "missing", ok ? libraryPath().c_str() : why.c_str());
    return ok ? 0 : 1;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
