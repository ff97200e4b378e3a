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
    The plain-data backend graph (`backend::graphFromFunc`) reads the role, then checks the shapes the
    role's local form needs (a rank-4 conv with a 2-D window, element-wise ops on equal shapes...).
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
