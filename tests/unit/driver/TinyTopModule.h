//===- TinyTopModule.h - The Top module the driver tests run ------------===//
// x -> add(x, x) -> relu: small enough to deploy and calibrate in milliseconds, with names (x, a, r) the
// tests look up in tables, records and dumps.
//===----------------------------------------------------------------------===//
#ifndef TPUC_TESTS_UNIT_DRIVER_TINYTOPMODULE_H
#define TPUC_TESTS_UNIT_DRIVER_TINYTOPMODULE_H

namespace tpuc::testing {

inline constexpr const char *kTinyTopModule = R"mlir(
module attributes {top.state = #top.state<TOP_F32>} {
  func.func @main(%arg0: tensor<1x4xf32>) -> (tensor<1x4xf32> {top.name = "r"}) {
    %x = top.input %arg0 : tensor<1x4xf32> -> tensor<1x4xf32> loc("x")
    %a = top.add %x, %x : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32> loc("a")
    %r = top.relu %a : tensor<1x4xf32> -> tensor<1x4xf32> loc("r")
    return %r : tensor<1x4xf32>
  }
}
)mlir";

} // namespace tpuc::testing

#endif // TPUC_TESTS_UNIT_DRIVER_TINYTOPMODULE_H
