//===- ArgDocsTest.cpp - man pages and bash completion from a flag binding -===//

#include "tpuc/Support/ArgDocs.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

using namespace tpuc;

namespace {

struct Demo {
  std::string model, quantize = "F32", out, action;
  int64_t groupSize = 64;
  bool debug = false;
  ArgParser parser{"tpuc demo", "Deploy a demo. It has a second sentence."};
  Demo() {
    parser.addPositional({{"action"}, "ACTION", "what to do", true, {"scan", "subset"}}, &action);
    parser.addOption({{"-m", "--model_path"}, "DIR", "model dir", true}, &model);
    parser.addOption({{"--quantize"}, "MODE", "precision", false, {"F32", "INT8"}, "F32"}, &quantize);
    parser.addOption({{"-g", "--q_group_size"}, "N", "group \\ size"}, &groupSize);
    parser.addOption({{"-o", "--output"}, "FILE", ".npz written here"}, &out);
    parser.addFlag({{"--debug"}, "", "keep files"}, &debug);
  }
};

/// Runs a bash snippet after sourcing `script`; its stdout.
std::string bash(const std::string &script, const std::string &snippet) {
  const std::string path = ::testing::TempDir() + "argdocs_completion.bash";
  std::ofstream(path) << script;
  const std::string command = "bash -c 'source " + path + "; " + snippet + "'";
  FILE *pipe = ::popen(command.c_str(), "r");
  std::string out;
  char buffer[256];
  while (pipe && std::fgets(buffer, sizeof buffer, pipe))
    out += buffer;
  if (pipe)
    ::pclose(pipe);
  return out;
}

} // namespace

TEST(ArgDocs, RoffEscapesDashesBackslashesAndLeadingDots) {
  EXPECT_EQ(roffEscape("--model_path"), "\\-\\-model_path");
  EXPECT_EQ(roffEscape("a\\b"), "a\\eb");
  EXPECT_EQ(roffEscape(".npz\n'x"), "\\&.npz\n\\&'x");
  EXPECT_EQ(manPageName("tpuc view calibration"), "tpuc-view-calibration");
}

TEST(ArgDocs, ManPageListsEveryEntryAsHelpDoes) {
  Demo d;
  const std::string page = manPage(d.parser, "TPU Studio 1.2", {{"EXIT STATUS", "0 ok"}});
  EXPECT_EQ(page.rfind(".TH \"TPUC\\-DEMO\" \"1\" \"\" \"TPU Studio 1.2\" \"User Commands\"\n", 0), 0u) << page;
  EXPECT_NE(page.find(".SH NAME\ntpuc\\-demo \\- Deploy a demo\n"), std::string::npos) << page;
  EXPECT_NE(page.find(".B tpuc demo\n[\\fIoptions\\fR] \\fIaction\\fR\n"), std::string::npos) << page;
  EXPECT_NE(page.find(".SH ARGUMENTS\n.TP\n\\fIaction\\fR\nwhat to do {scan|subset} [required]\n"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find(".TP\n\\fB\\-m\\fR, \\fB\\-\\-model_path\\fR \\fIDIR\\fR\nmodel dir [required]\n"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("precision {F32|INT8} (default: F32)\n"), std::string::npos) << page;
  EXPECT_NE(page.find("group \\e size\n"), std::string::npos) << page;
  // A help text starting with '.' must not become a roff request.
  EXPECT_NE(page.find("\n\\&.npz written here\n"), std::string::npos) << page;
  EXPECT_NE(page.find(".TP\n\\fB\\-\\-debug\\fR\nkeep files\n"), std::string::npos) << page;
  EXPECT_NE(page.find(".SH EXIT STATUS\n0 ok\n"), std::string::npos) << page;
}

TEST(ArgDocs, CompletionOffersFlagsChoicesAndFiles) {
  Demo d;
  const std::string fn = bashCompletionFunction(d.parser);
  EXPECT_EQ(bashFunctionName("tpuc llm-run"), "_tpuc_llm_run");
  EXPECT_EQ(fn.rfind("_tpuc_demo() {\n", 0), 0u) << fn;
  auto complete = [&](const std::string &words, int cword) {
    return bash(fn, "COMP_WORDS=(" + words + "); COMP_CWORD=" + std::to_string(cword) +
                    "; _tpuc_demo; echo \"${COMPREPLY[*]}\"");
  };
  if (std::system("bash -c true") != 0)
    GTEST_FAIL() << "bash is needed to run the completion";
  EXPECT_EQ(complete("tpuc demo --q", 2), "--quantize --q_group_size\n");
  EXPECT_EQ(complete("tpuc demo --quantize I", 3), "INT8\n");
  EXPECT_EQ(complete("tpuc demo -g \"\"", 3), "\n"); // a number: nothing to offer
  EXPECT_EQ(complete("tpuc demo su", 2), "subset\n");
  EXPECT_EQ(complete("tpuc demo --help-x", 2), "\n");
  // A FILE value completes to paths.
  const std::string dir = ::testing::TempDir() + "argdocs_dir";
  std::system(("mkdir -p " + dir + " && touch " + dir + "/model.onnx").c_str());
  EXPECT_EQ(complete("tpuc demo -o " + dir + "/mo", 3), dir + "/model.onnx\n");
}
