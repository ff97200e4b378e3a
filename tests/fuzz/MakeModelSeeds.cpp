//===- MakeModelSeeds.cpp - Seed corpus of the .tpum reader fuzzer --------===//
// Writes model file bodies (header stripped) of small generated models to argv[1].

#include "tpuc/Backend/GlobalMemory.h"
#include "tpuc/Backend/LayerGroup.h"
#include "tpuc/Codegen/Codegen.h"
#include "tpuc/Codegen/ModelFile.h"

#include <filesystem>
#include <fstream>
#include <iostream>

using namespace tpuc::backend;
using namespace tpuc::codegen;

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: make-model-seeds DIR\n";
    return 2;
  }
  std::filesystem::create_directories(argv[1]);
  ChipProfile chip = findChipProfile("bm1684x");
  int n = 0;
  for (int variant = 0; variant < 3; ++variant) {
    GraphBuilder b(variant == 2 ? DType::F32 : DType::INT8);
    int x = b.input("x", {1, 8, 8 + 4 * variant, 8});
    int c = b.conv("c", x, 8, 3, 1, 1);
    int y = variant == 0 ? b.unary("r", c) : b.maxPool("p", c, 2, 2);
    if (variant == 1)
      y = b.matmul("fc", b.reshape("flat", b.globalPool("gap", y), {1, 8}), 4);
    b.output(y);
    Graph g = b.take();
    LayerGroupPlan plan = planLayerGroups(chip, g);
    GmemPlan gmem = planGlobalMemory(chip, g, plan);
    StageCode code = generateStage(chip, g, plan, gmem, "main");
    Model m;
    m.chip = chip.name;
    for (size_t i = 0; i < code.weightValues.size(); ++i) {
      std::vector<uint8_t> bytes(std::min<int64_t>(64, g.values[code.weightValues[i]].bytes()), uint8_t(i));
      code.stage.weights[i].blob = addBlob(m, "w" + std::to_string(i), bytes.data(), bytes.size());
    }
    if (variant == 2) {
      // Version 5's control flow: the commands and a barrier per stream form block 0, which branches on
      // the input's first element to block 1 (a barrier per stream, jumping back) or ends the stage.
      Stage &s = code.stage;
      for (Engine e : {Engine::TIU, Engine::GDMA})
        for (int k = 0; k < 2; ++k) {
          Command sync;
          sync.engine = e;
          sync.kind = CmdKind::Sync;
          sync.id = static_cast<uint32_t>(s.cores[0].of(e).size() + 1);
          s.cores[0].of(e).push_back(sync);
        }
      uint32_t tiu = static_cast<uint32_t>(s.tiu().size()), gdma = static_cast<uint32_t>(s.gdma().size());
      Block head, back;
      head.cores = {{0, tiu - 1, 0, gdma - 1}};
      head.terminator.kind = Terminator::Kind::Branch;
      head.terminator.target = 1;
      head.terminator.elseTarget = 2;
      head.terminator.cond.address = s.inputs[0].address;
      head.terminator.cond.dtype = s.inputs[0].dtype;
      head.terminator.cond.shape = {1, 1, 1, 1};
      back.cores = {{tiu - 1, tiu, gdma - 1, gdma}};
      back.terminator.kind = Terminator::Kind::Jump;
      s.blocks = {head, back};
    }
    m.nets.push_back({"net" + std::to_string(variant), {code.stage}});
    std::vector<uint8_t> file = serializeModel(m);
    std::ofstream body(std::string(argv[1]) + "/seed" + std::to_string(n++), std::ios::binary);
    body.write(reinterpret_cast<const char *>(file.data()) + 32,
               static_cast<std::streamsize>(file.size() - 32));
  }
  return 0;
}
