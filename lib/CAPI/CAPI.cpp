//===- CAPI.cpp - kiln_call: Kiln's compiler behind one C function --------===//
//
// The boundary between Kiln's compiler and its hosts (Python through ctypes,
// anything else through the C header include/kiln-c/Kiln.h). A request is
// JSON text naming a method and its arguments; the response is JSON text
// with the result, or with every diagnostic the compile produced, each with
// its location and the machine-readable facts a pass attached. Nothing here
// depends on a Python version, so one library serves them all.
//
//===----------------------------------------------------------------------===//

#include "kiln-c/Kiln.h"

#include "kiln/Dialect/Tile/IR/BankConflicts.h"
#include "kiln/Dialect/Tile/IR/Dialect.h"
#include "kiln/InitAll.h"
#include "kiln/Support/InputLimits.h"
#include "kiln/Target/Backend.h"
#include "kiln/Target/Serialize.h"
#include "kiln/Target/Targets.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <optional>

#ifndef KILN_VERSION
#define KILN_VERSION "0.1.0"
#endif

using namespace mlir;
namespace json = llvm::json;

namespace {

/// A JSON string; JSON text must be UTF-8, and IR can hold anything.
json::Value str(llvm::StringRef s) {
  if (json::isUTF8(s))
    return s.str();
  return json::fixUTF8(s);
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

/// The first file/line/col inside `loc`. Kiln's Python builder wraps the
/// user's source line in name and call-site locations, and fusion keeps it
/// as one of several, so look through all of them.
std::optional<FileLineColRange> findFileLoc(Location loc) {
  if (auto file = dyn_cast<FileLineColRange>(loc))
    return file;
  if (auto name = dyn_cast<NameLoc>(loc))
    return findFileLoc(name.getChildLoc());
  if (auto callSite = dyn_cast<CallSiteLoc>(loc)) {
    // The callee is where the op is; the caller only says how we got there.
    if (auto file = findFileLoc(callSite.getCallee()))
      return file;
    return findFileLoc(callSite.getCaller());
  }
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location inner : fused.getLocations())
      if (auto file = findFileLoc(inner))
        return file;
    return std::nullopt;
  }
  if (auto opaque = dyn_cast<OpaqueLoc>(loc))
    return findFileLoc(opaque.getFallbackLocation());
  return std::nullopt;
}

const char *severityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

json::Object makeRecord(const Diagnostic &diag) {
  json::Object facts;
  for (const DiagnosticArgument &arg :
       const_cast<Diagnostic &>(diag).getMetadata())
    if (arg.getKind() == DiagnosticArgument::DiagnosticArgumentKind::Attribute)
      if (auto dict = dyn_cast<DictionaryAttr>(arg.getAsAttribute()))
        for (NamedAttribute field : dict) {
          if (auto i = dyn_cast<IntegerAttr>(field.getValue()))
            facts[field.getName().str()] = i.getInt();
          else if (auto s = dyn_cast<StringAttr>(field.getValue()))
            facts[field.getName().str()] = str(s.getValue());
        }
  json::Object record{{"severity", severityName(diag.getSeverity())},
                      {"message", str(diag.str())},
                      {"file", nullptr},
                      {"line", nullptr},
                      {"col", nullptr},
                      {"facts", std::move(facts)}};
  if (std::optional<FileLineColRange> file = findFileLoc(diag.getLocation())) {
    record["file"] = str(file->getFilename().getValue());
    record["line"] = int64_t(file->getStartLine());
    record["col"] = int64_t(file->getStartColumn());
  }
  return record;
}

/// Collects every diagnostic of a context (notes right after their parent)
/// for as long as it lives, so none of them reaches stderr.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diag) {
          records.push_back(makeRecord(diag));
          for (const Diagnostic &note : diag.getNotes())
            records.push_back(makeRecord(note));
        }) {}

  json::Array records;

private:
  ScopedDiagnosticHandler handler;
};

/// A failed call: the diagnostics, and a message of its own when none of
/// them is an error (a pass failing silently, a pipeline parser writing to a
/// stream).
struct Failure {
  json::Array records;
  std::string fallback;
};

/// A method's outcome: a result or a failure.
struct Outcome {
  std::optional<json::Value> result;
  Failure failure;

  Outcome(json::Value value) : result(std::move(value)) {}
  Outcome(Failure f) : failure(std::move(f)) {}
};

Failure fail(std::string message, json::Array records = {}) {
  return Failure{std::move(records), std::move(message)};
}

json::Value errorObject(Failure f) {
  bool hasError = llvm::any_of(f.records, [](const json::Value &r) {
    return r.getAsObject()->getString("severity") == "error";
  });
  if (!hasError)
    f.records.push_back(json::Object{{"severity", "error"},
                                     {"message", str(f.fallback)},
                                     {"file", nullptr},
                                     {"line", nullptr},
                                     {"col", nullptr},
                                     {"facts", json::Object{}}});
  std::string joined;
  for (const json::Value &v : f.records) {
    const json::Object &r = *v.getAsObject();
    if (!joined.empty())
      joined += "\n";
    if (auto file = r.getString("file"))
      joined += (*file + ":" + llvm::Twine(*r.getInteger("line")) + ":" +
                 llvm::Twine(*r.getInteger("col")) + ": ")
                    .str();
    joined += (*r.getString("severity") + ": " + *r.getString("message")).str();
  }
  return json::Object{{"message", str(joined)},
                      {"diagnostics", std::move(f.records)}};
}

//===----------------------------------------------------------------------===//
// Methods
//===----------------------------------------------------------------------===//

/// A fresh context per call: nothing leaks between compiles, and without
/// threads a host process does not grow a thread pool per context.
std::unique_ptr<MLIRContext> makeContext() {
  DialectRegistry registry;
  kiln::registerAllDialects(registry);
  auto context =
      std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  // The message and location say enough; a dump of the op is noise.
  context->printOpOnDiagnostic(false);
  return context;
}

json::Value knownTargets() {
  json::Array targets;
  for (const kiln::TargetDesc *t : kiln::getKnownTargets()) {
    const kiln::Backend *backend = kiln::getBackend(*t);
    json::Array env;
    for (llvm::StringRef var : backend->getToolEnvironment())
      env.push_back(var.str());
    targets.push_back(json::Object{
        {"name", t->name.str()},
        {"vendor", t->backend.str()},
        {"chip", t->chip.str()},
        {"warp_size", int64_t(t->warpSize)},
        {"max_shared_bytes", int64_t(t->maxSharedBytes)},
        {"max_vector_bytes", int64_t(t->maxVectorBytes)},
        {"max_threads_per_block", int64_t(t->maxThreadsPerBlock)},
        {"arch", int64_t(t->arch)},
        {"pointer_range_bytes", t->pointerRangeBytes},
        {"assembly", backend->getAssemblyName().str()},
        {"binary", backend->getBinaryName().str()},
        {"assembly_loadable", backend->isAssemblyLoadable()},
        {"takes_llvm_fn_attrs", backend->takesFunctionAttributes()},
        {"tool_environment", std::move(env)}});
  }
  return targets;
}

json::Value defaultTarget() {
  llvm::SmallVector<const kiln::Backend *> backends = kiln::getBackends();
  if (backends.empty())
    return nullptr;
  return backends.front()->getDefaultTarget().str();
}

/// Structured facts about a module, so the host reads no IR text: the shared
/// memory it needs (tile.shared), its compile context, its kernels (public
/// functions that return nothing) and their argument attributes.
json::Value moduleInfo(ModuleOp module) {
  using kiln::tile::TileDialect;
  MLIRContext *ctx = module->getContext();
  json::Object info;
  IntegerAttr shared = TileDialect::SharedAttrHelper(ctx).getAttr(module);
  info["shared"] = shared ? shared.getInt() : 0;
  IntegerAttr scratch =
      TileDialect::GlobalScratchAttrHelper(ctx).getAttr(module);
  info["global_scratch"] = scratch ? scratch.getInt() : 0;
  IntegerAttr warps = TileDialect::NumWarpsAttrHelper(ctx).getAttr(module);
  info["num_warps"] = warps ? json::Value(warps.getInt()) : nullptr;
  // Warps to launch: more than num_warps when warp_specialize adds workers.
  IntegerAttr total =
      TileDialect::TotalNumWarpsAttrHelper(ctx).getAttr(module);
  info["total_num_warps"] =
      total ? json::Value(total.getInt()) : info["num_warps"];
  StringAttr target = TileDialect::TargetAttrHelper(ctx).getAttr(module);
  info["target"] = target ? str(target.getValue()) : nullptr;
  json::Array kernels;
  json::Object kernelArgs;
  for (Operation &op : module.getBody()->getOperations()) {
    auto fn = dyn_cast<FunctionOpInterface>(&op);
    if (!fn || fn.isExternal() ||
        SymbolTable::getSymbolVisibility(&op) !=
            SymbolTable::Visibility::Public)
      continue;
    ArrayRef<Type> results = fn.getResultTypes();
    if (!(results.empty() ||
          (results.size() == 1 && isa<LLVM::LLVMVoidType>(results.front()))))
      continue;
    kernels.push_back(str(fn.getName()));
    // Each argument's attributes (alignment, divisibility, noalias ...) as
    // name -> attribute text, in argument order.
    json::Array args;
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
      json::Object attrs;
      for (NamedAttribute attr : fn.getArgAttrs(i)) {
        std::string text;
        llvm::raw_string_ostream os(text);
        attr.getValue().print(os);
        attrs[attr.getName().str()] = str(text);
      }
      args.push_back(std::move(attrs));
    }
    kernelArgs[fn.getName().str()] = std::move(args);
  }
  info["kernels"] = std::move(kernels);
  info["kernel_args"] = std::move(kernelArgs);
  return info;
}

std::string printWithLocations(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().enableDebugInfo(/*enable=*/true,
                                                      /*prettyForm=*/false));
  return text;
}

Outcome runPipeline(llvm::StringRef ir, llvm::StringRef pipeline,
                    llvm::StringRef sourceName, bool withInfo) {
  std::unique_ptr<MLIRContext> context = makeContext();
  DiagnosticCollector diags(*context);
  if (failed(kiln::checkNestingDepth(ir, sourceName, context.get())))
    return fail(("cannot parse '" + sourceName + "'").str(),
                std::move(diags.records));
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(ir, ParserConfig(context.get()), sourceName);
  if (!module)
    return fail(("cannot parse '" + sourceName + "'").str(),
                std::move(diags.records));

  std::string pipelineErrors;
  llvm::raw_string_ostream pipelineStream(pipelineErrors);
  FailureOr<OpPassManager> parsed = parsePassPipeline(pipeline, pipelineStream);
  if (failed(parsed))
    return fail(("invalid pass pipeline '" + pipeline +
                 "': " + llvm::StringRef(pipelineErrors).trim())
                    .str(),
                std::move(diags.records));
  PassManager pm(context.get());
  static_cast<OpPassManager &>(pm) = std::move(*parsed);
  if (failed(pm.run(*module)))
    return fail(("pass pipeline failed: " + pipeline).str(),
                std::move(diags.records));

  // Warnings and remarks of a successful run go back too: the host shows
  // them to the user (a failed run returns them with its errors).
  json::Object out{{"text", str(printWithLocations(*module))},
                   {"diagnostics", std::move(diags.records)}};
  if (withInfo)
    out["info"] = moduleInfo(*module);
  return json::Value(std::move(out));
}

/// Translates an LLVM-dialect module to each artifact of `emits` (one
/// optimization of the module serves them all): [{text} or {base64}, ...].
Outcome translate(llvm::StringRef ir, llvm::StringRef targetName,
                  llvm::ArrayRef<std::string> emits) {
  const kiln::TargetDesc *target = kiln::lookupTarget(targetName);
  if (!target)
    return fail(("unknown target '" + targetName +
                 "'; known targets: " + kiln::knownTargetNames())
                    .str());
  llvm::SmallVector<kiln::EmitKind> kinds;
  for (const std::string &emit : emits) {
    std::string emitError;
    std::optional<kiln::EmitKind> kind =
        kiln::parseEmitKind(emit, *target, emitError);
    if (!kind)
      return fail(emitError);
    kinds.push_back(*kind);
  }
  std::string what = llvm::join(emits, ", ");

  std::unique_ptr<MLIRContext> context = makeContext();
  DiagnosticCollector diags(*context);
  if (failed(kiln::checkNestingDepth(ir, "<llvm-dialect>", context.get())))
    return fail("cannot parse the LLVM-dialect module",
                std::move(diags.records));
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      ir, ParserConfig(context.get()), "<llvm-dialect>");
  if (!module)
    return fail("cannot parse the LLVM-dialect module",
                std::move(diags.records));
  kiln::SerializeTimings times;
  FailureOr<llvm::SmallVector<std::string>> artifacts =
      kiln::serializeModule(*module, *target, kinds, {}, &times);
  if (failed(artifacts))
    return fail("translation to " + what + " failed",
                std::move(diags.records));
  json::Array out;
  for (auto [kind, artifact] : llvm::zip(kinds, *artifacts)) {
    if (kind == kiln::EmitKind::Binary)
      out.push_back(json::Object{{"base64", llvm::encodeBase64(artifact)}});
    else
      out.push_back(json::Object{{"text", str(artifact)}});
  }
  return json::Value(json::Object{
      {"artifacts", std::move(out)},
      {"diagnostics", std::move(diags.records)},
      {"seconds", json::Object{{"translate", times.translate},
                               {"optimize", times.optimize},
                               {"codegen", times.codegen},
                               {"binary", times.binary}}}});
}

/// The F2-linear form C++ gives layout attribute `layoutText` on a tensor of
/// `shape`: [register, lane, warp] bases, or null when the text does not
/// parse or the layout does not fit the shape (the DSL then reports it).
json::Value linearLayout(llvm::StringRef layoutText,
                         const json::Array &shapeJson, unsigned elementBits) {
  llvm::SmallVector<int64_t> shape;
  for (const json::Value &d : shapeJson) {
    std::optional<int64_t> n = d.getAsInteger();
    if (!n || *n <= 0 || *n > (1 << 20))
      return nullptr;
    shape.push_back(*n);
  }
  if (shape.empty() || shape.size() > 8)
    return nullptr;
  std::unique_ptr<MLIRContext> context = makeContext();
  context->getOrLoadDialect<kiln::tile::TileDialect>();
  ScopedDiagnosticHandler quiet(context.get(),
                                [](Diagnostic &) { return success(); });
  Attribute attr = parseAttribute(layoutText, context.get());
  if (!attr)
    return nullptr;
  if (isa<kiln::tile::SharedLayoutAttr>(attr)) {
    // A shared layout: its map from element offset to coordinates (one
    // buffer of `shape`, elements of `elementBits`), as one list of bases.
    Type element = IntegerType::get(context.get(), elementBits);
    // The type's own checks (rank, powers of two, the layout's element
    // width): a combination they refuse has no map.
    if (failed(kiln::tile::MemDescType::verify(
            [&] { return emitError(UnknownLoc::get(context.get())); }, shape,
            element, attr, /*mutableMemory=*/true, shape)))
      return nullptr;
    auto memdesc = kiln::tile::MemDescType::get(context.get(), shape, element,
                                                attr, /*mutableMemory=*/true,
                                                shape);
    FailureOr<kiln::LinearLayout> ll = kiln::tile::getSharedLinearLayout(memdesc);
    if (failed(ll))
      return nullptr;
    json::Array bases;
    for (const kiln::LinearLayout::Basis &b :
         ll->getBases(kiln::LinearLayout::Register)) {
      json::Array coords;
      for (int32_t c : b)
        coords.push_back(int64_t(c));
      bases.push_back(std::move(coords));
    }
    json::Array out;
    out.push_back(std::move(bases));
    return out;
  }
  auto type =
      RankedTensorType::get(shape, Float32Type::get(context.get()), attr);
  FailureOr<kiln::LinearLayout> ll = kiln::tile::getLinearLayout(type);
  if (failed(ll))
    return nullptr;
  json::Array out;
  for (auto dim : {kiln::LinearLayout::Register, kiln::LinearLayout::Lane,
                   kiln::LinearLayout::Warp}) {
    json::Array bases;
    for (const kiln::LinearLayout::Basis &b : ll->getBases(dim)) {
      json::Array coords;
      for (int32_t c : b)
        coords.push_back(int64_t(c));
      bases.push_back(std::move(coords));
    }
    out.push_back(std::move(bases));
  }
  return out;
}

/// Bank conflicts of local_load / local_store moving a tensor of type
/// `tensorText` from / to a buffer of type `memdescText`
/// (kiln::tile::countBankConflicts) on the banks of target `targetName`
/// (32 of 4 bytes when empty): {"conflicts": n}, or {"reason": why} when a
/// type does not parse or the lowering cannot address the buffer with the
/// tensor's layout (the DSL then reports it at the user's line).
json::Value bankConflicts(llvm::StringRef tensorText,
                          llvm::StringRef memdescText,
                          llvm::StringRef targetName) {
  kiln::tile::SharedBankModel model;
  if (!targetName.empty()) {
    const kiln::TargetDesc *target = kiln::lookupTarget(targetName);
    if (!target)
      return json::Object{
          {"reason", str(("unknown target '" + targetName + "'").str())}};
    model.numBanks = target->sharedMemoryBanks;
    model.laneBits16 = target->sharedLoad16LaneBits;
  }
  std::unique_ptr<MLIRContext> context = makeContext();
  context->getOrLoadDialect<kiln::tile::TileDialect>();
  // A type the verifier rejects: its first message says why.
  std::string firstError;
  ScopedDiagnosticHandler keep(context.get(), [&](Diagnostic &d) {
    if (firstError.empty())
      firstError = d.str();
    return success();
  });
  auto reason = [&](llvm::StringRef what, llvm::StringRef text) {
    std::string why = (what + " " + text).str();
    if (!firstError.empty())
      why += ": " + firstError;
    return json::Object{{"reason", str(why)}};
  };
  auto tensor =
      dyn_cast_or_null<RankedTensorType>(parseType(tensorText, context.get()));
  if (!tensor || !tensor.getEncoding())
    return reason("not a tensor type with a layout:", tensorText);
  auto memdesc = dyn_cast_or_null<kiln::tile::MemDescType>(
      parseType(memdescText, context.get()));
  if (!memdesc)
    return reason("not a valid shared memory descriptor type:", memdescText);
  FailureOr<int64_t> count =
      kiln::tile::countBankConflicts(tensor, memdesc, model);
  if (failed(count))
    return reason("Kiln cannot address " + memdescText.str() + " with",
                  tensorText);
  return json::Object{{"conflicts", *count}};
}

/// A string argument, or a failure naming it.
std::optional<llvm::StringRef> stringArg(const json::Object &args,
                                         llvm::StringRef name, Failure &f) {
  if (std::optional<llvm::StringRef> s = args.getString(name))
    return s;
  f = fail(("argument '" + name + "' must be a string").str());
  return std::nullopt;
}

Outcome dispatch(const json::Object &request) {
  if (request.getInteger("api").value_or(-1) != KILN_API_VERSION)
    return fail("kiln_call: this library implements API version " +
                std::to_string(KILN_API_VERSION) +
                "; the request asks for another");
  std::optional<llvm::StringRef> method = request.getString("method");
  static const json::Object kNoArgs;
  const json::Object *args = request.getObject("args");
  if (!args)
    args = &kNoArgs;
  if (!method)
    return fail("kiln_call: the request has no method");
  Failure bad;
  if (*method == "version")
    return json::Value("kiln-" KILN_VERSION " llvm-" LLVM_VERSION_STRING);
  if (*method == "known_targets")
    return knownTargets();
  if (*method == "default_target")
    return defaultTarget();
  if (*method == "run_pipeline") {
    auto ir = stringArg(*args, "ir", bad);
    auto pipeline = ir ? stringArg(*args, "pipeline", bad) : std::nullopt;
    if (!ir || !pipeline)
      return bad;
    llvm::StringRef source = args->getString("source_name").value_or("kernel");
    return runPipeline(*ir, *pipeline, source,
                       args->getBoolean("info").value_or(false));
  }
  if (*method == "translate") {
    auto ir = stringArg(*args, "ir", bad);
    auto target = ir ? stringArg(*args, "target", bad) : std::nullopt;
    if (!target)
      return bad;
    std::vector<std::string> emits;
    if (const json::Array *list = args->getArray("emit")) {
      for (const json::Value &v : *list)
        if (std::optional<llvm::StringRef> s = v.getAsString())
          emits.push_back(s->str());
      if (emits.size() != list->size() || emits.empty())
        return fail("argument 'emit' must be a non-empty list of strings");
    } else if (std::optional<llvm::StringRef> one = args->getString("emit")) {
      emits.push_back(one->str());
    } else {
      return fail("argument 'emit' must be a string or a list of strings");
    }
    return translate(*ir, *target, emits);
  }
  if (*method == "linear_layout") {
    auto layout = stringArg(*args, "layout", bad);
    const json::Array *shape = args->getArray("shape");
    if (!layout)
      return bad;
    if (!shape)
      return fail("argument 'shape' must be a list of integers");
    int64_t bits = args->getInteger("element_bits").value_or(32);
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
      return fail("argument 'element_bits' must be 8, 16, 32 or 64");
    return linearLayout(*layout, *shape, unsigned(bits));
  }
  if (*method == "bank_conflicts") {
    auto tensor = stringArg(*args, "tensor_type", bad);
    auto memdesc =
        tensor ? stringArg(*args, "memdesc_type", bad) : std::nullopt;
    if (!memdesc)
      return bad;
    llvm::StringRef target;
    if (std::optional<llvm::StringRef> t = args->getString("target"))
      target = *t;
    return bankConflicts(*tensor, *memdesc, target);
  }
  return fail(("kiln_call: unknown method '" + *method + "'").str());
}

char *copyOut(const std::string &text, size_t *length) {
  char *out = static_cast<char *>(std::malloc(text.size() + 1));
  if (!out)
    return nullptr;
  std::memcpy(out, text.data(), text.size());
  out[text.size()] = '\0';
  if (length)
    *length = text.size();
  return out;
}

} // namespace

extern "C" int kiln_api_version(void) { return KILN_API_VERSION; }

extern "C" int kiln_call(const char *request, size_t requestLen,
                         char **response, size_t *responseLen) {
  kiln::registerAllPasses(); // once; also the backends
  Outcome outcome = fail("kiln_call: the request is not a JSON object");
  llvm::Expected<json::Value> parsed =
      json::parse(llvm::StringRef(request ? request : "", requestLen));
  if (!parsed)
    outcome = fail("kiln_call: the request is not valid JSON: " +
                   llvm::toString(parsed.takeError()));
  else if (const json::Object *object = parsed->getAsObject())
    outcome = dispatch(*object);

  bool ok = outcome.result.has_value();
  json::Object reply{{"ok", ok}};
  if (ok)
    reply["result"] = std::move(*outcome.result);
  else
    reply["error"] = errorObject(std::move(outcome.failure));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << json::Value(std::move(reply));
  os.flush();
  if (response)
    *response = copyOut(text, responseLen);
  return ok ? 0 : 1;
}

extern "C" void kiln_free(char *response) { std::free(response); }
