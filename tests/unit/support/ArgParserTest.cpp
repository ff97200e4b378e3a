//===- ArgParserTest.cpp - tpuc argument parser ---------------------------===//

#include "tpuc/Support/ArgParser.h"

#include <gtest/gtest.h>

using namespace tpuc;

namespace {

struct Options {
  std::string model;
  std::string quantize = "F32";
  int64_t groupSize = 64;
  double temperature = 1.0;
  bool debug = false;
  std::vector<std::string> names;
  std::vector<double> mean;
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> shapes;
  std::string input;
};

struct Fixture {
  Options opts;
  ArgParser parser{"tpuc demo", "A demo command."};
  Fixture() {
    parser.addOption({{"-m", "--model_path"}, "DIR", "model dir", true},
                     &opts.model);
    parser.addOption({{"--quantize"}, "MODE", "precision", false,
                      {"F32", "BF16", "INT8"}, "F32"},
                     &opts.quantize);
    parser.addOption({{"-g", "--q_group_size"}, "N", "group"},
                     &opts.groupSize);
    parser.addOption({{"--temperature"}, "T", "temp"}, &opts.temperature);
    parser.addFlag({{"--debug"}, "", "keep files"}, &opts.debug);
    parser.addOption({{"--output_names"}, "A,B", "outputs"}, &opts.names);
    parser.addOption({{"--mean"}, "M,...", "mean"}, &opts.mean);
    parser.addOption({{"--resize_dims"}, "H,W", "dims"}, &opts.dims);
    parser.addOption({{"--input_shapes"}, "SHAPES", "shapes"}, &opts.shapes);
    parser.addPositional({{"input"}, "", "input file"}, &opts.input);
  }
  ParseOutcome parse(std::vector<std::string> args) {
    return parser.parse(args);
  }
};

} // namespace

TEST(ArgParser, BothValueSpellingsAndAliases) {
  Fixture f;
  auto r = f.parse({"--model_path=/m", "--quantize", "int8", "-g", "128",
                    "--temperature=0.7", "--debug", "in.mlir"});
  ASSERT_EQ(r.kind, ParseOutcome::Ok) << r.message;
  EXPECT_EQ(f.opts.model, "/m");
  EXPECT_EQ(f.opts.quantize, "INT8"); // canonical spelling
  EXPECT_EQ(f.opts.groupSize, 128);
  EXPECT_DOUBLE_EQ(f.opts.temperature, 0.7);
  EXPECT_TRUE(f.opts.debug);
  EXPECT_EQ(f.opts.input, "in.mlir");
  Fixture g;
  ASSERT_EQ(g.parse({"-m", "x", "--debug=false"}).kind, ParseOutcome::Ok);
  EXPECT_FALSE(g.opts.debug);
  EXPECT_EQ(g.opts.groupSize, 64); // default kept
}

TEST(ArgParser, Lists) {
  Fixture f;
  auto r = f.parse({"-m", "x", "--output_names", "a,b", "--output_names=c",
                    "--mean", "0,-1.5, 2", "--resize_dims", "[224,256]",
                    "--input_shapes", "[[1,3,224,224],[1,10]]"});
  ASSERT_EQ(r.kind, ParseOutcome::Ok) << r.message;
  EXPECT_EQ(f.opts.names, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(f.opts.mean, (std::vector<double>{0, -1.5, 2}));
  EXPECT_EQ(f.opts.dims, (std::vector<int64_t>{224, 256}));
  EXPECT_EQ(f.opts.shapes,
            (std::vector<std::vector<int64_t>>{{1, 3, 224, 224}, {1, 10}}));
}

TEST(ArgParser, ShapeListSpellings) {
  using Shapes = std::vector<std::vector<int64_t>>;
  EXPECT_EQ(parseShapeList("[[1,3],[2]]"), (Shapes{{1, 3}, {2}}));
  EXPECT_EQ(parseShapeList("[1, 3, 224]"), (Shapes{{1, 3, 224}}));
  EXPECT_EQ(parseShapeList("1,3"), (Shapes{{1, 3}}));
  EXPECT_EQ(parseShapeList("[]"), (Shapes{{}}));
  EXPECT_EQ(parseShapeList("[[1,2],[]]"), (Shapes{{1, 2}, {}}));
  for (const char *bad : {"", "[[1,2]", "[[1,2]]x", "[[1,,2]]", "[[a]]",
                          "[[1,-2]]", "[[1,2],]", "[[1,[2]]"})
    EXPECT_EQ(parseShapeList(bad), std::nullopt) << bad;
  EXPECT_EQ(splitList(" a, ,b ,"), (std::vector<std::string>{"a", "b"}));
}

TEST(ArgParser, ErrorsAreOneClearLine) {
  auto message = [](std::vector<std::string> args) {
    Fixture f;
    auto r = f.parse(std::move(args));
    EXPECT_EQ(r.kind, ParseOutcome::Error);
    EXPECT_EQ(r.message.find('\n'), std::string::npos);
    return r.message;
  };
  EXPECT_EQ(message({"-m", "x", "--foo"}),
            "tpuc demo: unknown option '--foo' (see 'tpuc demo --help')");
  EXPECT_EQ(message({"-m", "x", "--foo=3"}),
            "tpuc demo: unknown option '--foo' (see 'tpuc demo --help')");
  EXPECT_EQ(message({}), "tpuc demo: missing required option '--model_path' "
                         "(see 'tpuc demo --help')");
  EXPECT_EQ(message({"-m", "x", "--quantize", "INT4"}),
            "tpuc demo: invalid value 'INT4' for '--quantize' (choose from "
            "F32, BF16, INT8) (see 'tpuc demo --help')");
  EXPECT_EQ(message({"-m", "x", "-g", "12x"}),
            "tpuc demo: '--q_group_size' expects an integer, got '12x' (see "
            "'tpuc demo --help')");
  EXPECT_EQ(message({"-m"}), "tpuc demo: option '-m' needs a value (see "
                             "'tpuc demo --help')");
  EXPECT_EQ(message({"-m", "x", "a", "b"}),
            "tpuc demo: unexpected argument 'b' (see 'tpuc demo --help')");
  EXPECT_NE(message({"-m", "x", "--mean", "1,x"})
                .find("'--mean' expects comma-separated numbers, got '1,x'"),
            std::string::npos);
  EXPECT_NE(message({"-m", "x", "--input_shapes", "[[1,2]"})
                .find("expects shapes like"),
            std::string::npos);
  EXPECT_NE(message({"-m", "x", "--debug=maybe"}).find("true or false"),
            std::string::npos);
}

TEST(ArgParser, HelpAndDoubleDash) {
  Fixture f;
  EXPECT_EQ(f.parse({"--quantize", "bad", "--help"}).kind,
            ParseOutcome::Error); // parse stops at the first error
  Fixture g;
  EXPECT_EQ(g.parse({"-h"}).kind, ParseOutcome::Help);
  std::string help = g.parser.help();
  EXPECT_NE(help.find("usage: tpuc demo [options] [input]"), std::string::npos);
  EXPECT_NE(help.find("-m, --model_path DIR"), std::string::npos);
  EXPECT_NE(help.find("model dir [required]"), std::string::npos);
  EXPECT_NE(help.find("{F32|BF16|INT8} (default: F32)"), std::string::npos);
  EXPECT_NE(help.find("-h, --help"), std::string::npos);
  Fixture h;
  ASSERT_EQ(h.parse({"-m", "x", "--", "--weird-name"}).kind, ParseOutcome::Ok);
  EXPECT_EQ(h.opts.input, "--weird-name");
}

TEST(ArgParser, ValuesListEveryFieldDefaultsIncluded) {
  Fixture f;
  ASSERT_EQ(f.parse({"-m", "/models/x", "--mean", "1.5,2", "--input_shapes", "[[1,3],[2]]", "in.npz"}).kind,
            ParseOutcome::Ok);
  std::vector<std::pair<std::string, std::string>> values = f.parser.values();
  std::vector<std::pair<std::string, std::string>> want = {{"--model_path", "/models/x"},
                                                           {"--quantize", "F32"},
                                                           {"--q_group_size", "64"},
                                                           {"--temperature", "1"},
                                                           {"--debug", "false"},
                                                           {"--output_names", ""},
                                                           {"--mean", "1.5,2"},
                                                           {"--resize_dims", ""},
                                                           {"--input_shapes", "[[1,3],[2]]"},
                                                           {"input", "in.npz"}};
  EXPECT_EQ(values, want);
  // A value render() refuses (a list item with a comma) is still recorded.
  f.opts.names = {"a,b", "c"};
  EXPECT_FALSE(f.parser.render().error.empty());
  EXPECT_EQ(f.parser.values()[5].second, "a,b,c");
}
