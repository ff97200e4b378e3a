//===- KernelCaseTest.cpp - Every reference kernel against NumPy ---------===//
// Registers one test per case of manifest.txt (written by gen_cases.py at build time): parse the case's
// module, interpret it on the case's inputs, compare each output with NumPy's within the case tolerance.
//===----------------------------------------------------------------------===//
#include "TestSupport.h"

#include "tpuc/Simulator/Interpreter.h"

#include <fstream>
#include <sstream>

using namespace tpuc;
using namespace tpuc::sim;

namespace {

const std::string kCasesDir = TPUC_REF_CASES_DIR;

class KernelCase : public ::testing::Test {
public:
  KernelCase(std::string name, double atol, double rtol) : name(std::move(name)), atol(atol), rtol(rtol) {}

  void TestBody() override {
    auto context = test::makeContext();
    auto module = mlir::parseSourceFile<mlir::ModuleOp>(kCasesDir + "/" + name + ".mlir", context.get());
    ASSERT_TRUE(module) << "cannot parse " << name << ".mlir";
    NpzFile data = NpzFile::read(kCasesDir + "/" + name + ".npz");
    Interpreter interp(*module);
    ASSERT_FALSE(errorToBool(interp.setInputs(data)));
    llvm::Error err = interp.run(RunOptions{.numThreads = 2});
    ASSERT_FALSE(err) << llvm::toString(std::move(err));
    const NpzFile &outputs = interp.outputs();
    ASSERT_EQ(outputs.size(), interp.outputNames().size());
    for (size_t i = 0; i < outputs.size(); ++i) {
      SCOPED_TRACE("output #" + std::to_string(i) + " '" + outputs.names()[i] + "'");
      EXPECT_TRUE(test::allClose(outputs.get(outputs.names()[i]), data.get("expected" + std::to_string(i)),
                                 atol, rtol));
    }
  }

private:
  static bool errorToBool(llvm::Error err) {
    if (!err)
      return false;
    ADD_FAILURE() << llvm::toString(std::move(err));
    return true;
  }

  std::string name;
  double atol, rtol;
};

/// Registers the cases of the manifest; a missing manifest is itself a failing test.
void registerCases() {
  std::ifstream manifest(kCasesDir + "/manifest.txt");
  std::string line;
  int count = 0;
  while (std::getline(manifest, line)) {
    std::istringstream fields(line);
    std::string name;
    double atol = 0, rtol = 0;
    if (!(fields >> name >> atol >> rtol))
      continue;
    ::testing::RegisterTest("KernelCases", name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [=]() -> ::testing::Test * { return new KernelCase(name, atol, rtol); });
    ++count;
  }
  if (count < 150)
    ::testing::RegisterTest("KernelCases", "ManifestComplete", nullptr, nullptr, __FILE__, __LINE__,
                            [=]() -> ::testing::Test * {
                              struct Missing : ::testing::Test {
                                int found;
                                explicit Missing(int found) : found(found) {}
                                void TestBody() override {
                                  FAIL() << "only " << found << " cases in " << kCasesDir
                                         << "/manifest.txt; rebuild to regenerate them";
                                }
                              };
                              return new Missing(count);
                            });
}

} // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  registerCases();
  return RUN_ALL_TESTS();
}
