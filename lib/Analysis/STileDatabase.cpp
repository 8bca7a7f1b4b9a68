//===- STileDatabase.cpp - Measured latencies of STile variants -----------===//

#include "PIT/Analysis/STileDatabase.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::pit;

namespace {

/// Reads `array` as numbers into `out`; false if an element is not one.
template <typename T>
bool readNumbers(const llvm::json::Array *array, SmallVectorImpl<T> &out) {
  if (!array)
    return false;
  for (const llvm::json::Value &element : *array) {
    std::optional<double> number = element.getAsNumber();
    if (!number)
      return false;
    out.push_back(static_cast<T>(*number));
  }
  return true;
}

} // namespace

FailureOr<STileDatabase> STileDatabase::load(StringRef path,
                                             std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = "cannot read '" + path.str() + "': " + buffer.getError().message();
    return failure();
  }
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*buffer)->getBuffer());
  if (!parsed) {
    error = "'" + path.str() + "' is not JSON: " + toString(parsed.takeError());
    return failure();
  }
  auto fail = [&](const Twine &why) {
    error = ("'" + path + "': " + why).str();
    return failure();
  };
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root)
    return fail("expected an object");
  STileDatabase database;
  if (std::optional<StringRef> device = root->getString("device"))
    database.device = device->str();
  if (!readNumbers(root->getArray("coverage"), database.coverage) ||
      database.coverage.empty())
    return fail("'coverage' must be a non-empty list of numbers");
  for (size_t i = 0; i < database.coverage.size(); ++i)
    if (database.coverage[i] < 0.0 || database.coverage[i] > 1.0 ||
        (i > 0 && database.coverage[i] <= database.coverage[i - 1]))
      return fail("'coverage' must increase within [0, 1]");
  const llvm::json::Array *ops = root->getArray("ops");
  if (!ops)
    return fail("'ops' must be a list");
  for (const llvm::json::Value &entry : *ops) {
    const llvm::json::Object *op = entry.getAsObject();
    std::optional<StringRef> key = op ? op->getString("op") : std::nullopt;
    std::optional<double> dense = op ? op->getNumber("dense_us") : std::nullopt;
    const llvm::json::Array *variants = op ? op->getArray("variants") : nullptr;
    if (!key || !dense || !variants)
      return fail("every op needs 'op', 'dense_us' and 'variants'");
    OpLatencies &latencies = database.ops[*key];
    latencies.dense = *dense;
    for (const llvm::json::Value &variantValue : *variants) {
      const llvm::json::Object *variant = variantValue.getAsObject();
      STileVariantLatencies parsedVariant;
      std::optional<int64_t> pitLoop =
          variant ? variant->getInteger("pit_loop") : std::nullopt;
      if (!variant || !pitLoop || *pitLoop < 0 ||
          !readNumbers(variant->getArray("micro_tile"),
                       parsedVariant.microTile) ||
          !readNumbers(variant->getArray("latency_us"),
                       parsedVariant.latencies))
        return fail("variants of '" + *key +
                    "' need 'micro_tile', 'pit_loop' and 'latency_us'");
      if (parsedVariant.latencies.size() != database.coverage.size())
        return fail("a variant of '" + *key + "' has " +
                    Twine(parsedVariant.latencies.size()) + " latencies for " +
                    Twine(database.coverage.size()) + " coverage points");
      if (variant->get("dense_latency_us") &&
          (!readNumbers(variant->getArray("dense_latency_us"),
                        parsedVariant.denseLatencies) ||
           parsedVariant.denseLatencies.size() != database.coverage.size()))
        return fail("a variant of '" + *key +
                    "' has a 'dense_latency_us' that is not a list of " +
                    Twine(database.coverage.size()) + " numbers");
      if (variant->get("dense_tile") &&
          !readNumbers(variant->getArray("dense_tile"),
                       parsedVariant.denseTile))
        return fail("a variant of '" + *key +
                    "' has a 'dense_tile' that is not a list of numbers");
      if (const llvm::json::Value *panel = variant->get("panel")) {
        std::optional<int64_t> rows = panel->getAsInteger();
        if (!rows || *rows <= 0)
          return fail("a variant of '" + *key +
                      "' has a 'panel' that is not a positive number");
        parsedVariant.panel = *rows;
      }
      if (const llvm::json::Value *group = variant->get("group_rows")) {
        std::optional<bool> grouped = group->getAsBoolean();
        if (!grouped || (*grouped && !parsedVariant.panel))
          return fail("a variant of '" + *key +
                      "' has a 'group_rows' that is not true or false, or "
                      "no 'panel' to group rows in");
        parsedVariant.groupRows = *grouped;
      }
      parsedVariant.pitLoop = *pitLoop;
      latencies.variants.push_back(std::move(parsedVariant));
    }
  }
  return database;
}

std::string STileDatabase::getKey(linalg::LinalgOp op) {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << op->getName().getStringRef() << ' ';
  llvm::interleave(op.getStaticLoopRanges(), os, "x");
  os << ' ';
  llvm::interleave(
      op->getOperands(), os,
      [&](Value operand) { os << getElementTypeOrSelf(operand.getType()); },
      ",");
  return key;
}

const OpLatencies *STileDatabase::lookup(linalg::LinalgOp op) const {
  auto it = ops.find(getKey(op));
  return it == ops.end() ? nullptr : &it->second;
}
