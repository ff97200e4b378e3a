//===- ModelZoo.cpp - ResNet-18 and MobileNet-V2 backend graphs -----------===//

#include "tpuc/Backend/ModelZoo.h"

#include <string>

namespace tpuc::backend {

Graph buildResNet18(DType dtype, int64_t batch, int64_t size) {
  GraphBuilder b(dtype);
  int x = b.input("input", {batch, 3, size, size});
  x = b.conv("conv1", x, 64, 7, 2, 3);
  x = b.maxPool("maxpool", x, 3, 2, 1);
  int64_t inC = 64;
  const int64_t widths[] = {64, 128, 256, 512};
  for (int layer = 0; layer < 4; ++layer) {
    for (int block = 0; block < 2; ++block) {
      std::string p = "layer" + std::to_string(layer + 1) + "." + std::to_string(block) + ".";
      int64_t c = widths[layer];
      int64_t stride = (block == 0 && layer > 0) ? 2 : 1;
      int identity = x;
      int y = b.conv(p + "conv1", x, c, 3, stride, 1);
      y = b.conv(p + "conv2", y, c, 3, 1, 1);
      if (stride != 1 || inC != c)
        identity = b.conv(p + "downsample", x, c, 1, stride, 0);
      x = b.add(p + "add", y, identity);
      inC = c;
    }
  }
  x = b.globalPool("avgpool", x);
  x = b.reshape("flatten", x, {batch, 512});
  x = b.matmul("fc", x, 1000);
  b.output(x);
  return b.take();
}

Graph buildMobileNetV2(DType dtype, int64_t batch, int64_t size) {
  GraphBuilder b(dtype);
  int x = b.input("input", {batch, 3, size, size});
  x = b.conv("features.0", x, 32, 3, 2, 1);
  struct Stage {
    int64_t t, c, n, s;
  };
  const Stage stages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                          {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int64_t inC = 32;
  int index = 1;
  for (const Stage &st : stages) {
    for (int64_t i = 0; i < st.n; ++i, ++index) {
      std::string p = "features." + std::to_string(index) + ".";
      int64_t stride = i == 0 ? st.s : 1;
      int64_t hidden = inC * st.t;
      int y = x;
      if (st.t != 1)
        y = b.conv(p + "expand", y, hidden, 1);
      y = b.conv(p + "dw", y, hidden, 3, stride, 1, /*groups=*/hidden);
      y = b.conv(p + "project", y, st.c, 1);
      if (stride == 1 && inC == st.c)
        y = b.add(p + "add", y, x);
      x = y;
      inC = st.c;
    }
  }
  x = b.conv("features.18", x, 1280, 1);
  x = b.globalPool("avgpool", x);
  x = b.reshape("flatten", x, {batch, 1280});
  x = b.matmul("classifier", x, 1000);
  b.output(x);
  return b.take();
}

} // namespace tpuc::backend
