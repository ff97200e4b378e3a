//===- TpuInterfaces.td - Op interfaces of the Tpu dialect -*- tablegen -*-===//
// Who consumes a Tpu op asks it through an interface, never by its name: the backend (BackendInterface,
// implemented here from each op's role trait) and the simulator (KernelInterface, declared here and
// implemented in simulator/ as external models, as Top's InferenceInterface is).
//===----------------------------------------------------------------------===//
#ifndef TPUC_TPU_INTERFACES
#define TPUC_TPU_INTERFACES

include "mlir/IR/OpBase.td"

/// The op's role for the backend planner (`tpuc::tpu::BackendRole`, TpuTraits.h); an op without the trait
/// is `Other`: computed by itself from DDR, never in a layer group.
class Tpu_Role<string role>
    : ParamNativeOpTrait<"BackendRoleTrait", "::tpuc::tpu::BackendRole::" # role> {
  let cppNamespace = "::tpuc::tpu";
}

def Tpu_BackendInterface : OpInterface<"BackendInterface"> {
  let cppNamespace = "::tpuc::tpu";
  let description = [{
    What the backend (layer groups, local memory, cost model, codegen) needs to know about a Tpu op beyond
    its operands, types and attributes. Every Tpu op has it; the role comes from the op's `Tpu_Role` trait.
    The plain-data backend graph (`backend::graphFromFunc`) reads everything it plans and costs with from
    here (role, local form and its sliceable axes, window, groups, axis, fused Relu), then checks the
    shapes the role's local form needs (a rank-4 conv with a 2-D window, element-wise ops on equal
    shapes...). The defaults read the op's typed ODS accessors, so an op states a fact by declaring the
    attribute.
  }];
  let methods = [
    InterfaceMethod<"The op's role for the backend planner.", "::tpuc::tpu::BackendRole", "getBackendRole",
      (ins), [{}], [{
        if constexpr (requires { ConcreteOp::kBackendRole; })
          return ConcreteOp::kBackendRole;
        else
          return ::tpuc::tpu::BackendRole::Other;
      }]>,
    InterfaceMethod<[{Whether the op has a local form: computed slice by slice from local memory inside a
      layer group (N and H are the sliced axes), rather than by itself from DDR.}], "bool", "hasLocalForm",
      (ins), [{}], [{ return ::tpuc::tpu::hasLocalForm($_op.getBackendRole()); }]>,
    InterfaceMethod<[{The axes a layer group may slice the op along (N = 0, H = 2; the W axis stays whole,
      a window's halo is added along H): both for an op with a local form, none otherwise.}],
      "::llvm::SmallVector<int64_t, 2>", "getSliceableAxes", (ins), [{}], [{
        if ($_op.hasLocalForm())
          return {0, 2};
        return {};
      }]>,
    InterfaceMethod<[{The 2-D window (kernel, strides, pads, dilations) of a windowed op, from its typed
      attributes; nullopt for ops without one. A cost input of conv and pool.}],
      "std::optional<::tpuc::tpu::Window2D>", "getWindow", (ins), [{}],
      [{ return ::tpuc::tpu::windowOf($_op); }]>,
    InterfaceMethod<"The number of convolution groups (1 for every other op). A cost input of conv.",
      "int64_t", "getGroups", (ins), [{}], [{
        if constexpr (requires { $_op.getGroup(); })
          return static_cast<int64_t>($_op.getGroup());
        else
          return 1;
      }]>,
    InterfaceMethod<[{The axis the op works along (concat, gather, softmax, ...), as stored (may be
      negative); nullopt for ops without one.}], "std::optional<int64_t>", "getBackendAxis", (ins), [{}], [{
        if constexpr (requires { $_op.getAxis(); })
          return ::tpuc::tpu::detail::optionalI64($_op.getAxis());
        else
          return std::nullopt;
      }]>,
    InterfaceMethod<[{Whether the op applies a fused Relu to its result: such an op computes new bytes, so a
      reshape or concat with one is never in place.}], "bool", "fusesRelu", (ins), [{}], [{
        if constexpr (requires { $_op.getDoRelu(); })
          return $_op.getDoRelu();
        else
          return false;
      }]>,
  ];
}

def Tpu_KernelInterface : OpInterface<"KernelInterface"> {
  let cppNamespace = "::tpuc::tpu";
  let description = [{
    Exact execution on the Tpu simulator. The dialect only declares it: the kernels live in simulator/,
    which attaches it to every Tpu op as an external model (`tpuc::sim::registerTpuKernels`), so the
    compiler never links a kernel. A float-precision op (and INT8 data movement) runs its Top twin: the Top
    op with the same attributes on f32 arguments, whose reference kernel makes F32 results bit-identical to
    the Top interpreter.
  }];
  let methods = [
    InterfaceMethod<[{Computes the results from the operands (buffers, encodings and integer weights in
      `context`). The error is the message only; the caller names the op.}], "::llvm::Error", "execute",
      (ins "::tpuc::sim::tpusim::OpContext &":$context)>,
    InterfaceMethod<"Whether `execute` needs the op's Top twin (built once by `buildFloatTwin`).", "bool",
      "needsFloatTwin">,
    InterfaceMethod<[{Builds the Top twin at the end of `block` (of a scratch module); `forInt8` adapts the
      attributes for INT8 data movement (pad values quantized, fused relu left to the caller).}],
      "::llvm::Expected<::mlir::Operation *>", "buildFloatTwin", (ins "::mlir::Block &":$block, "bool":$forInt8)>,
  ];
}

#endif // TPUC_TPU_INTERFACES
