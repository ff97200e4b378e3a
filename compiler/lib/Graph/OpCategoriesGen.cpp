//===- OpCategoriesGen.cpp - tablegen backend: op name → category table ---===//
//
// `tpuc-graph-tblgen -gen-op-categories TopOps.td` reads the dialect's ODS and writes one
// `{"top.conv", "conv"},` row per op for the graph view's colours. The category is what the op's
// own documentation states, "(category: X)" in its summary or description; an op that states none
// takes the category of the file it is defined in (TopIOOps.td → "io"), as the dialects split their
// op files by category.
//
//===----------------------------------------------------------------------===//

#include "mlir/TableGen/GenInfo.h"
#include "mlir/TableGen/Operator.h"
#include "mlir/Tools/mlir-tblgen/MlirTblgenMain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

#include <string>

using namespace llvm;

namespace {

/// "(category: conv)" or "category: conv" in a documentation text, or "".
std::string statedCategory(StringRef text) {
  static const Regex pattern("category: ([A-Za-z_]+)");
  SmallVector<StringRef, 2> matches;
  if (pattern.match(text, &matches))
    return matches[1].lower();
  return "";
}

/// The category implied by the defining file: `<Dialect><Category>Ops.td`.
std::string fileCategory(const Record &def, StringRef dialect) {
  ArrayRef<SMLoc> locs = def.getLoc();
  if (locs.empty())
    return "other";
  unsigned buffer = SrcMgr.FindBufferContainingLoc(locs.front());
  if (!buffer)
    return "other";
  StringRef file = sys::path::filename(SrcMgr.getMemoryBuffer(buffer)->getBufferIdentifier());
  if (file.size() > dialect.size() && file.take_front(dialect.size()).equals_insensitive(dialect))
    file = file.drop_front(dialect.size());
  if (!file.consume_back("Ops.td") || file.empty())
    return "other";
  return file.lower();
}

bool emitCategories(const RecordKeeper &records, raw_ostream &os) {
  emitSourceFileHeader("Op categories from the dialects' ODS", os, records);
  for (const Record *def : records.getAllDerivedDefinitions("Op")) {
    mlir::tblgen::Operator op(def);
    std::string category = statedCategory(op.getSummary());
    if (category.empty())
      category = statedCategory(op.getDescription());
    if (category.empty())
      category = fileCategory(*def, op.getDialectName());
    os << "{\"" << op.getOperationName() << "\", \"" << category << "\"},\n";
  }
  return false;
}

const mlir::GenRegistration genOpCategories("gen-op-categories",
                                            "Generate the op name → category table of the graph view",
                                            emitCategories);

} // namespace

int main(int argc, char **argv) { return mlir::MlirTblgenMain(argc, argv); }
