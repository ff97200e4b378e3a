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
  json j = json::parse(backendPlanJson(c, g, lg, gm, explainCuts(c, g, lg, {})));
  EXPECT_EQ(j["schema"], "tpuc-backend-plan");
  EXPECT_EQ(j["version"], 3);
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

TEST(Artifacts, PlanV2HasValuesFirstOpsAndCuts) {
  ChipProfile c = findChipProfile("bm1684x", {TPUC_CHIP_TEST_DIR});
  GraphBuilder b(DType::INT8);
  int x = b.input("x", {1, 64, 8, 32768});
  int a = b.conv("a", x, 128, 1);
  int y = b.conv("b", a, 192, 1);
  b.output(b.matmul("fc", y, 10));
  Graph g = b.take();
  LayerGroupPlan lg = planLayerGroups(c, g);
  GmemPlan gm = planGlobalMemory(c, g, lg);
  std::vector<GroupCut> cuts = explainCuts(c, g, lg, {});
  json j = json::parse(backendPlanJson(c, g, lg, gm, cuts));
  EXPECT_EQ(j["version"], 3);
  // Every value in graph order, with its shape.
  ASSERT_EQ(j["values"].size(), g.values.size());
  for (size_t i = 0; i < g.values.size(); ++i) {
    const json &v = j["values"][i];
    EXPECT_EQ(v["name"], g.values[i].name);
    EXPECT_EQ(v["shape"].get<std::vector<int64_t>>(), g.values[i].shape);
    EXPECT_EQ(v["dtype"], dtypeName(g.values[i].dtype));
    EXPECT_EQ(v["bytes"], g.values[i].bytes());
    EXPECT_EQ(v["weight"], g.values[i].isWeight);
  }
  EXPECT_EQ(j["values"][0]["shape"], json({1, 64, 8, 32768}));
  EXPECT_EQ(j["values"][1]["name"], "a.weight");
  EXPECT_EQ(j["values"][1]["dtype"], "INT8");
  EXPECT_EQ(j["values"][2]["dtype"], "INT32");
  EXPECT_EQ(j["values"][2]["weight"], true);
  // groups: {a}, {b}, fc (global).
  ASSERT_EQ(j["groups"].size(), 3u);
  for (size_t i = 0; i < lg.groups.size(); ++i) {
    EXPECT_EQ(j["groups"][i]["first_op"], lg.groups[i].ops.front());
    EXPECT_EQ(j["ops"][j["groups"][i]["first_op"].get<int>()]["name"], j["groups"][i]["ops"][0]);
  }
  ASSERT_EQ(j["cuts"].size(), cuts.size());
  ASSERT_EQ(j["cuts"].size(), 3u);
  const json &lmem = j["cuts"][0];
  EXPECT_EQ(lmem["group"], 0);
  EXPECT_EQ(lmem["where"], "after");
  EXPECT_EQ(lmem["op"], "b");
  EXPECT_EQ(lmem["reason"], "lmem");
  EXPECT_EQ(lmem["message"], cuts[0].message);
  EXPECT_EQ(lmem["needed"], 295552);
  EXPECT_EQ(lmem["capacity"], 262144);
  EXPECT_EQ(lmem["short_bytes"], 33408);
  EXPECT_EQ(lmem["time_unit"], 5);
  EXPECT_EQ(lmem["stage"], 2);
  EXPECT_EQ(lmem["unit_op"], "b");
  EXPECT_EQ(lmem["slices"], json({{"n", 1}, {"c", 1}, {"h", 8}, {"w", 1}}));
  ASSERT_EQ(lmem["live"].size(), 8u);
  EXPECT_EQ(lmem["live"][0], json({{"value", "b"}, {"kind", "output"}, {"slice", 0}, {"size", 98304}}));
  EXPECT_EQ(lmem["live"][7]["kind"], "weight");
  EXPECT_EQ(lmem["live"][7]["slice"], -1);
  const json &after = j["cuts"][1], &global = j["cuts"][2];
  EXPECT_EQ(after["group"], 1);
  EXPECT_EQ(after["where"], "after");
  EXPECT_EQ(after["op"], "fc");
  EXPECT_EQ(after["reason"], "no_local_form");
  EXPECT_EQ(after["kind"], "matmul");
  EXPECT_EQ(global["group"], 2);
  EXPECT_EQ(global["where"], "global");
  EXPECT_EQ(global["op"], "fc");
  EXPECT_EQ(global["reason"], "no_local_form");
  EXPECT_FALSE(global.contains("needed"));

  // What `tpuc deploy --explain_groups` prints comes back from the file.
  auto path = std::filesystem::temp_directory_path() / "tpuc_plan_cuts_test.json";
  writeBackendPlan(path.string(), c, g, lg, gm, cuts);
  auto read = readPlanCuts(path.string());
  std::filesystem::remove(path);
  ASSERT_EQ(read.size(), 3u);
  EXPECT_EQ(read[2], std::make_pair(2, cuts[2].message));
  try {
    readPlanCuts("/nonexistent/plan.json");
    FAIL();
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ(e.what(), "/nonexistent/plan.json: cannot read the backend plan");
  }
}

// Version 3: which core runs each slice, stage, LMEM rect and part of a global op.
TEST(Artifacts, PlanV3RecordsTheCores) {
  ChipProfile c = findChipProfile("bm1688", {TPUC_CHIP_TEST_DIR});
  Graph g = buildResNet18(DType::INT8);
  GroupOptions o;
  o.cores = 2;
  LayerGroupPlan lg = planLayerGroups(c, g, o);
  GmemPlan gm = planGlobalMemory(c, g, lg);
  json j = json::parse(backendPlanJson(c, g, lg, gm, explainCuts(c, g, lg, o)));
  EXPECT_EQ(j["version"], 3);
  EXPECT_EQ(j["cores"], 2);
  EXPECT_EQ(j["sync_cycles"], c.syncCycles);
  int splitGlobals = 0;
  for (size_t i = 0; i < lg.groups.size(); ++i) {
    const json &jg = j["groups"][i];
    const LayerGroup &grp = lg.groups[i];
    EXPECT_EQ(jg["cores"], grp.cores);
    EXPECT_EQ(jg["sync_cycles"], grp.syncCycles);
    if (grp.global) {
      ASSERT_EQ(jg["parts"].size(), grp.parts.size());
      for (size_t k = 0; k < grp.parts.size(); ++k) {
        EXPECT_EQ(jg["parts"][k]["core"], grp.parts[k].core);
        EXPECT_EQ(jg["parts"][k]["axis"], grp.parts[k].axis);
        EXPECT_EQ(jg["parts"][k]["range"], json({grp.parts[k].range.begin, grp.parts[k].range.end}));
      }
      splitGlobals += !grp.parts.empty();
      continue;
    }
    for (size_t si = 0; si < grp.slices.size(); ++si)
      EXPECT_EQ(jg["slices"][si]["core"], grp.sliceCore[si]);
    for (size_t t = 0; t < grp.steps.size(); ++t) {
      EXPECT_EQ(jg["time_steps"][t]["core"], grp.steps[t].core);
      EXPECT_EQ(jg["time_steps"][t]["stage"], grp.steps[t].stage);
    }
    for (size_t r = 0; r < grp.rects.size(); ++r)
      EXPECT_EQ(jg["lmem"]["rects"][r]["core"], grp.rects[r].core);
  }
  EXPECT_EQ(splitGlobals, 1); // the global average pool, over its channels
}

TEST(Artifacts, SameInputSameBytes) {
  ChipProfile c = findChipProfile("cv186ah", {TPUC_CHIP_TEST_DIR});
  Graph g = buildMobileNetV2(DType::INT8);
  LayerGroupPlan a = planLayerGroups(c, g), b = planLayerGroups(c, g);
  GmemPlan ga = planGlobalMemory(c, g, a), gb = planGlobalMemory(c, g, b);
  EXPECT_EQ(backendPlanJson(c, g, a, ga, explainCuts(c, g, a, {}), -1),
            backendPlanJson(c, g, b, gb, explainCuts(c, g, b, {}), -1));
}

TEST(Artifacts, WriteFailureNamesTheFile) {
  ChipProfile c = findChipProfile("bm1684x", {TPUC_CHIP_TEST_DIR});
  GraphBuilder bld;
  bld.output(bld.unary("u", bld.input("x", {1, 4, 4, 4})));
  Graph g = bld.take();
  LayerGroupPlan lg = planLayerGroups(c, g);
  GmemPlan gm = planGlobalMemory(c, g, lg);
  try {
    writeBackendPlan("/nonexistent/dir/plan.json", c, g, lg, gm, {});
    FAIL();
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ(e.what(), "/nonexistent/dir/plan.json: cannot write (No such file or directory)");
  }
  auto path = std::filesystem::temp_directory_path() / "tpuc_plan_test.json";
  writeBackendPlan(path.string(), c, g, lg, gm, {});
  std::ifstream in(path);
  json j = json::parse(in);
  EXPECT_EQ(j["groups"].size(), 1u);
  std::filesystem::remove(path);
}

} // namespace
