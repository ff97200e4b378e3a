//===- ModelZoo.h - Plain-data graphs shaped like well-known networks -----===//
//
// ResNet-18 and MobileNet-V2 as backend graphs with hand-derived shapes (BN
// folded, ReLU fused into conv/add as the Tpu lowering does), for tests and
// benchmarks of the planners without going through the importer.
//
//===----------------------------------------------------------------------===//

#ifndef TPUC_BACKEND_MODELZOO_H
#define TPUC_BACKEND_MODELZOO_H

#include "tpuc/Backend/Graph.h"

namespace tpuc::backend {

/// torchvision resnet18 at `batch` x 3 x `size` x `size`.
Graph buildResNet18(DType dtype, int64_t batch = 1, int64_t size = 224);

/// torchvision mobilenet_v2 at `batch` x 3 x `size` x `size`.
Graph buildMobileNetV2(DType dtype, int64_t batch = 1, int64_t size = 224);

} // namespace tpuc::backend

#endif // TPUC_BACKEND_MODELZOO_H
