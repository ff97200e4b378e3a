//===- ProjectDatasetTest.cpp - The project store's dataset indexes (schema 3) ===//

#include "project/ProjectStore.h"
#include "project/Schema.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

using namespace tpuc;
using namespace tpuc::project;
namespace fs = std::filesystem;

namespace {

class ProjectDatasetTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("tpuc_project_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir);
    fs::create_directories(dir / "images");
    file = dir / "p.tpuproj";
    Dataset d;
    d.name = "calibration";
    d.samples.push_back({(dir / "images/a.png").string(), "{}", {}});
    dataset::DatasetIndex index;
    index.root = (dir / "images").string();
    dataset::FileMetadata png;
    png.format = "png", png.width = 64, png.height = 48, png.channels = 3;
    png.mean = {180.5, 100.25, 50}, png.stddev = {20, 10, 5};
    png.hasDhash = true, png.dhash = 0x0123456789abcdefULL;
    png.embedding.assign(dataset::kEmbedSide * dataset::kEmbedSide, 7);
    dataset::FileMetadata npy;
    npy.format = "npy", npy.dtype = "f32", npy.shape = {1, 3, 8, 8}, npy.mean = {0.5}, npy.stddev = {0.25};
    index.files = {{"a.png", 1234, 1700000000123456789, "sha256:aa", png},
                   {"sub/t.npy", 868, 1700000000000000000, "sha256:bb", npy}};
    index.unreadable = {{"broken.jpg", "cannot decode image: bad"}};
    index.subsets = {{"two", "first", 2, 0, {"a.png", "sub/t.npy"}}, {"one", "random", 1, 42, {"sub/t.npy"}}};
    d.index = index;
    project.datasets.push_back(d);
    project.datasets.push_back({0, "without index", {}, std::nullopt});
  }
  void TearDown() override { fs::remove_all(dir); }

  std::string query(const std::string &sql) {
    sqlite3 *db = nullptr;
    sqlite3_open(file.c_str(), &db);
    sqlite3_stmt *stmt = nullptr;
    std::string text;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW)
      text = reinterpret_cast<const char *>(sqlite3_column_text(stmt, 0));
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return text;
  }
  void exec(const std::string &sql) {
    sqlite3 *db = nullptr;
    sqlite3_open(file.c_str(), &db);
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
  }

  fs::path dir, file;
  Project project;
};

TEST_F(ProjectDatasetTest, IndexAndSubsetsRoundTripWithTheRootRelative) {
  if (Result<void> saved = saveProject(project, file, SaveMode::Replace); !saved)
    FAIL() << saved.error();
  EXPECT_EQ(query("PRAGMA user_version"), std::to_string(schema::kCurrentVersion));
  EXPECT_EQ(schema::kCurrentVersion, 3);
  EXPECT_EQ(query("SELECT root FROM dataset_indexes"), "images");
  EXPECT_EQ(query("SELECT count(*) FROM dataset_files"), "2");
  auto loaded = loadProject(file);
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_EQ(loaded->datasets.size(), 2u);
  ASSERT_TRUE(loaded->datasets[0].index);
  EXPECT_EQ(*loaded->datasets[0].index, *project.datasets[0].index);
  EXPECT_FALSE(loaded->datasets[1].index);
  // In place again (rows replaced, not doubled).
  if (Result<void> saved = saveProject(*loaded, file, SaveMode::InPlace); !saved)
    FAIL() << saved.error();
  EXPECT_EQ(query("SELECT count(*) FROM dataset_files"), "2");
  EXPECT_EQ(query("SELECT count(*) FROM dataset_unreadable"), "1");
}

TEST_F(ProjectDatasetTest, VersionTwoProjectsAreMigrated) {
  project.datasets[0].index.reset();
  if (Result<void> saved = saveProject(project, file, SaveMode::Replace); !saved)
    FAIL() << saved.error();
  exec("DROP TABLE dataset_indexes; DROP TABLE dataset_files; DROP TABLE dataset_unreadable; "
       "PRAGMA user_version = 2;");
  auto loaded = loadProject(file);
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_EQ(loaded->datasets.size(), 2u);
  EXPECT_EQ(query("PRAGMA user_version"), "2"); // loading does not modify the file
  if (Result<void> saved = saveProject(*loaded, file, SaveMode::InPlace); !saved)
    FAIL() << saved.error();
  EXPECT_EQ(query("PRAGMA user_version"), "3");
  EXPECT_EQ(query("SELECT count(*) FROM dataset_files"), "0");
}

TEST_F(ProjectDatasetTest, AMalformedIndexRowNamesTheDatasetAndFile) {
  if (Result<void> saved = saveProject(project, file, SaveMode::Replace); !saved)
    FAIL() << saved.error();
  exec("UPDATE dataset_files SET metadata = '{\"width\": 3}' WHERE path = 'a.png'");
  Result<Project> broken = loadProject(file);
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().find("dataset 'calibration': file a.png: metadata:"), std::string::npos)
      << broken.error();
}

} // namespace
