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
  if (!std::strcmp(mode, "partial")) { // a last line without newline, then success
    std::printf("last words without newline");
    return 0;
  }
  std::fprintf(stderr, "fake_job: unknown mode '%s'\n", mode);
  return 2;
}
