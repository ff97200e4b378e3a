//===- Broadcast.h - NumPy broadcasting for element-wise kernels (internal) -*- C++ -*-===//
// Collapses the broadcast operand shapes to as few axes as possible, then walks the output in parallel
// chunks with a contiguous or scalar inner loop per operand.
//===----------------------------------------------------------------------===//
#ifndef TPUC_SIMULATOR_REFERENCE_BROADCAST_H
#define TPUC_SIMULATOR_REFERENCE_BROADCAST_H

#include "Kernels.h"

#include <array>
#include <cstring>
#include <tuple>

namespace tpuc::sim::ref {

/// The output shape collapsed to the fewest axes and, per operand, its element strides along them
/// (0 where the operand is broadcast).
template <size_t N> struct BroadcastPlan {
  llvm::SmallVector<int64_t, 6> shape;
  std::array<llvm::SmallVector<int64_t, 6>, N> strides;
  int64_t total = 1;
};

template <size_t N>
BroadcastPlan<N> planBroadcast(llvm::ArrayRef<int64_t> out, std::array<llvm::ArrayRef<int64_t>, N> ins) {
  size_t rank = out.size();
  std::array<llvm::SmallVector<int64_t, 6>, N> full;
  for (size_t k = 0; k < N; ++k) {
    full[k].assign(rank, 0);
    int64_t stride = 1, offset = rank - ins[k].size();
    for (int64_t i = ins[k].size() - 1; i >= 0; --i) {
      if (ins[k][i] != 1)
        full[k][i + offset] = stride;
      stride *= ins[k][i];
    }
  }
  BroadcastPlan<N> plan;
  for (size_t i = 0; i < rank; ++i) {
    plan.total *= out[i];
    if (out[i] == 1)
      continue;
    bool merge = !plan.shape.empty();
    for (size_t k = 0; merge && k < N; ++k)
      merge = plan.strides[k].back() == full[k][i] * out[i];
    if (merge) {
      plan.shape.back() *= out[i];
      for (size_t k = 0; k < N; ++k)
        plan.strides[k].back() = full[k][i];
      continue;
    }
    plan.shape.push_back(out[i]);
    for (size_t k = 0; k < N; ++k)
      plan.strides[k].push_back(full[k][i]);
  }
  if (plan.shape.empty()) { // a single element
    plan.shape.push_back(1);
    for (size_t k = 0; k < N; ++k)
      plan.strides[k].push_back(0);
  }
  return plan;
}

/// A plan for a strided read of one operand: output `shape` with input element `strides` per axis
/// (possibly negative); size-1 axes dropped and contiguous runs merged.
inline BroadcastPlan<1> stridedPlan(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> strides) {
  BroadcastPlan<1> plan;
  for (size_t i = 0; i < shape.size(); ++i) {
    plan.total *= shape[i];
    if (shape[i] == 1)
      continue;
    if (!plan.shape.empty() && plan.strides[0].back() == strides[i] * shape[i]) {
      plan.shape.back() *= shape[i];
      plan.strides[0].back() = strides[i];
      continue;
    }
    plan.shape.push_back(shape[i]);
    plan.strides[0].push_back(strides[i]);
  }
  if (plan.shape.empty()) {
    plan.shape.push_back(1);
    plan.strides[0].push_back(0);
  }
  return plan;
}

/// out[i] = fn(in_0[..], ..., in_{N-1}[..]) over the broadcast output, in parallel chunks. With N == 1
/// the function is ignored: it is a strided copy.
template <size_t N, typename Fn>
void forEachBroadcast(const BroadcastPlan<N> &plan, std::array<const float *, N> in, float *out, Fn fn) {
  int64_t inner = plan.shape.back(), rank = plan.shape.size();
  parallelFor(plan.total, kElementGrain, [&](int64_t begin, int64_t end) {
    for (int64_t pos = begin; pos < end;) {
      int64_t row = pos / inner, col = pos % inner, count = std::min(inner - col, end - pos);
      std::array<const float *, N> ptr;
      std::array<int64_t, N> step;
      for (size_t k = 0; k < N; ++k) {
        int64_t offset = 0, rest = row;
        for (int64_t d = rank - 2; d >= 0; --d) {
          offset += (rest % plan.shape[d]) * plan.strides[k][d];
          rest /= plan.shape[d];
        }
        step[k] = plan.strides[k].back();
        ptr[k] = in[k] + offset + col * step[k];
      }
      float *dst = out + pos;
      if constexpr (N == 1) {
        if (step[0] == 1)
          std::memcpy(dst, ptr[0], count * sizeof(float));
        else
          for (int64_t i = 0; i < count; ++i)
            dst[i] = ptr[0][i * step[0]];
      } else if constexpr (N == 2) {
        const float *a = ptr[0], *b = ptr[1];
        if (step[0] == 1 && step[1] == 1)
          for (int64_t i = 0; i < count; ++i)
            dst[i] = fn(a[i], b[i]);
        else if (step[0] == 1 && step[1] == 0) {
          float bv = b[0];
          for (int64_t i = 0; i < count; ++i)
            dst[i] = fn(a[i], bv);
        } else if (step[0] == 0 && step[1] == 1) {
          float av = a[0];
          for (int64_t i = 0; i < count; ++i)
            dst[i] = fn(av, b[i]);
        } else
          for (int64_t i = 0; i < count; ++i)
            dst[i] = fn(a[i * step[0]], b[i * step[1]]);
      } else {
        for (int64_t i = 0; i < count; ++i) {
          std::array<float, N> args;
          for (size_t k = 0; k < N; ++k)
            args[k] = ptr[k][i * step[k]];
          dst[i] = std::apply(fn, args);
        }
      }
      pos += count;
    }
  });
}

} // namespace tpuc::sim::ref

#endif // TPUC_SIMULATOR_REFERENCE_BROADCAST_H
