// Test helper: a stand-in for a `tpuc ... --progress json` child that behaves as told by its argument.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

// Under AddressSanitizer the crash modes must still crash with the real signal, not an ASan report.
extern "C" const char *__asan_default_options() { return "handle_segv=0:handle_abort=0"; }

static void progress(const char *stage, double fraction, const char *message) {
  std::printf("{\"stage\": \"%s\", \"fraction\": %.2f, \"message\": \"%s\"}\n", stage, fraction, message);
  std::fflush(stdout);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "ok";
  if (!std::strcmp(mode, "transform")) { // standing in for `tpuc transform`: echo the command line
    std::string line = "argv:";
    for (int i = 1; i < argc; ++i)
      line += std::string(" ") + argv[i];
    std::printf("%s\n{\"stage\": \"transform\", \"fraction\": 1.0, \"message\": \"done\"}\n", line.c_str());
    return 0;
  }
  if (!std::strcmp(mode, "llm-convert")) { // what tpuc llm-convert does in this build
    std::fprintf(stderr, "tpuc llm-convert: not implemented yet in this build\n");
    return 3;
  }
  if (!std::strcmp(mode, "compare")) { // `tpuc transform --test_input`: artifacts, a table, its record
    std::FILE *f = std::fopen("net.mlir", "w");
    if (!f)
      return 2;
    std::fputs("module {}\n", f);
    std::fclose(f);
    std::printf("{\"stage\": \"import\", \"fraction\": 1, \"message\": \"wrote net.mlir\", "
                "\"artifacts\": [\"net.mlir\", \"missing_weight.npz\"]}\n");
    std::printf("Target    top_outputs.npz\nReference onnx_outputs.npz\nTolerance cos 0.99, euc 0.9\n\n");
    std::printf("name                              status       result     cosine     euclid       sqnr  max_abs_diff\n");
    std::printf("logits                            close        PASSED   1.000000   0.999990    98.1234      1.2e-06\n");
    std::printf("aux out                           not_similar  FAILED   0.500000   0.100000     3.0000          0.5\n");
    std::printf("\n2 compared\n1 passed\nnpz compare FAILED.\n");
    // What the studio reads: the record (tpuc/Driver/Results.h) beside the MLIR.
    f = std::fopen("net_transform_result.json", "w");
    if (!f)
      return 2;
    std::fputs(
        R"({"schema": "tpuc.result", "version": 1, "job": "transform", "status": "failed", "exit_code": 1,
 "message": "Top outputs differ from ONNX Runtime beyond --tolerance 0.99,0.9", "model": "net.onnx",
 "mlir": "net.mlir", "artifacts": ["net.mlir", "missing_weight.npz"], "framework": "onnxruntime",
 "framework_skipped": "", "outputs": [
  {"name": "logits", "status": "CLOSE", "pass": true, "cosine": 1.0, "euclidean": 0.99999, "sqnr": 98.1234,
   "max_abs_diff": 1.2e-06},
  {"name": "aux out", "status": "NOT_SIMILAR", "pass": false, "cosine": 0.5, "euclidean": 0.1, "sqnr": 3.0,
   "max_abs_diff": 0.5}]}
)",
        f);
    std::fclose(f);
    return 1;
  }
  std::printf("fake_job starting (%s)\n", mode);
  std::fflush(stdout);
  std::fprintf(stderr, "a line on stderr\n");
  std::fflush(stderr);
  progress("import", 0.25, "reading the model");
  progress("transform", 0.5, "building Top IR");
  if (!std::strcmp(mode, "ok")) {
    std::printf("{\"stage\": \"done\", \"fraction\": 1.0, \"message\": \"finished\", "
                "\"artifacts\": [\"out/top.mlir\", \"out/weights.npz\"]}\n");
    return 0;
  }
  if (!std::strcmp(mode, "fail")) {
    std::fprintf(stderr, "error: model.onnx: node 'conv1' has an unsupported attribute\n");
    return 3;
  }
  if (!std::strcmp(mode, "segfault")) {
    std::fprintf(stderr, "about to crash\n");
    std::fflush(stderr);
    std::raise(SIGSEGV);
  }
  if (!std::strcmp(mode, "abort")) {
    std::fprintf(stderr, "assertion failed: shape.size() == 4\n");
    std::fflush(stderr);
    std::abort();
  }
  if (!std::strcmp(mode, "hang")) {
    std::this_thread::sleep_for(std::chrono::hours(1));
    return 0;
  }
  if (!std::strcmp(mode, "slow-talker")) { // alive: a line every 0.4 s for 2.4 s, then success
    for (int i = 0; i < 6; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(400));
      progress("work", i / 6.0, "still here");
    }
    return 0;
  }
  if (!std::strcmp(mode, "busy")) { // works for argv[2] ms, a progress line every fifth of it, then success
    const int ms = argc > 2 ? std::atoi(argv[2]) : 50;
    for (int i = 1; i <= 5; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms / 5));
      progress("work", i / 5.0, "busy");
    }
    return 0;
  }
  if (!std::strcmp(mode, "partial")) { // a last line without newline, then success
    std::printf("last words without newline");
    return 0;
  }
  std::fprintf(stderr, "fake_job: unknown mode '%s'\n", mode);
  return 2;
}
