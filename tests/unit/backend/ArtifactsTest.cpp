//===- ArtifactsTest.cpp - The JSON plan for the studio -------------------===//

#include "tpuc/Backend/Artifacts.h"
#include "tpuc/Backend/ModelZoo.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using namespace tpuc::backend;
using nlohmann::json;

namespace {

TEST(Artifacts, PlanJsonMirrorsThePlan) {
  ChipProfile c = findChipProfile("bm1684x", {TPUC_CHIP_TEST_DIR});
  Graph g = buildResNet18(DType::INT8);
  LayerGroupPlan lg = planLayerGroups(c, g);
  GmemPlan gm = planGlobalMemory(c, g, lg);
  json j = json::parse(backendPlanJson(c, g, lg, gm));
  EXPECT_EQ(j["schema"], "tpuc-backend-plan");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["chip"]["name"], "bm1684x");
  EXPECT_EQ(j["opt"], 2);
  EXPECT_EQ(j["total_cycles"], lg.totalCycles);
  ASSERT_EQ(j["groups"].size(), lg.groups.size());
  for (size_t i = 0; i < lg.groups.size(); ++i) {
    const json &jg = j["groups"][i];
    const LayerGroup &grp = lg.groups[i];
    EXPECT_EQ(jg["id"], i);
    EXPECT_EQ(jg["ops"].size(), grp.ops.size());
    EXPECT_EQ(jg["kind"], grp.global ? "global" : "group");
    EXPECT_EQ(jg["cycles"], grp.cycles);
    if (grp.global) {
      EXPECT_FALSE(jg.contains("lmem"));
      continue;
    }
    EXPECT_EQ(jg["slices"].size(), grp.slices.size());
    EXPECT_EQ(jg["time_steps"].size(), grp.steps.size());
    ASSERT_EQ(jg["lmem"]["rects"].size(), grp.rects.size());
    for (size_t r = 0; r < grp.rects.size(); ++r) {
      const json &jr = jg["lmem"]["rects"][r];
      EXPECT_EQ(jr["addr"], grp.rects[r].addr);
      EXPECT_EQ(jr["t0"], grp.rects[r].tStart);
      EXPECT_EQ(jr["value"], g.values[grp.rects[r].value].name);
    }
    // A slice box is [begin, end] per dimension.
    const json &first = jg["slices"][0]["values"].begin().value();
    EXPECT_EQ(first["h"].size(), 2u);
  }
  EXPECT_EQ(j["gmem"]["activation_peak"], gm.activationPeak);
  EXPECT_EQ(j["gmem"]["lower_bound"], gm.lowerBound);
  EXPECT_EQ(j["gmem"]["buffers"].size(), gm.buffers.size());
  EXPECT_EQ(j["gmem"]["weights"].size(), gm.weights.size());
  EXPECT_EQ(j["gmem"]["strategies"].size(), allGmemStrategies().size());
  ASSERT_EQ(j["ops"].size(), g.ops.size());
  EXPECT_EQ(j["ops"][0]["name"], "conv1");
  EXPECT_EQ(j["ops"][0]["kind"], "conv");
  EXPECT_GT(j["ops"][0]["tiu_cycles"].get<int64_t>(), 0);
}

TEST(Artifacts, SameInputSameBytes) {
  ChipProfile c = findChipProfile("cv186ah", {TPUC_CHIP_TEST_DIR});
  Graph g = buildMobileNetV2(DType::INT8);
  LayerGroupPlan a = planLayerGroups(c, g), b = planLayerGroups(c, g);
  GmemPlan ga = planGlobalMemory(c, g, a), gb = planGlobalMemory(c, g, b);
  EXPECT_EQ(backendPlanJson(c, g, a, ga, -1), backendPlanJson(c, g, b, gb, -1));
}

TEST(Artifacts, WriteFailureNamesTheFile) {
  ChipProfile c = findChipProfile("bm1684x", {TPUC_CHIP_TEST_DIR});
  GraphBuilder bld;
  bld.output(bld.unary("u", bld.input("x", {1, 4, 4, 4})));
  Graph g = bld.take();
  LayerGroupPlan lg = planLayerGroups(c, g);
  GmemPlan gm = planGlobalMemory(c, g, lg);
  try {
    writeBackendPlan("/nonexistent/dir/plan.json", c, g, lg, gm);
    FAIL();
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ(e.what(), "/nonexistent/dir/plan.json: cannot write the backend plan");
  }
  auto path = std::filesystem::temp_directory_path() / "tpuc_plan_test.json";
  writeBackendPlan(path.string(), c, g, lg, gm);
  std::ifstream in(path);
  json j = json::parse(in);
  EXPECT_EQ(j["groups"].size(), 1u);
  std::filesystem::remove(path);
}

} // namespace
