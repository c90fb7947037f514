//===- compiler.cc - The kiln._compiler Python extension ------------------===//
//
// Text in, text (or bytes) out: parse and verify IR, run a textual pass
// pipeline, translate LLVM-dialect IR to PTX/cubin/AMDGCN/hsaco. The Python
// side keeps every stage as text, so `kiln-opt` and `kiln-translate` can
// replay any compile it did.
//
// Every MLIR diagnostic is collected and raised as kiln._compiler.
// CompilationError; nothing here may end the Python process on bad input.
//
//===----------------------------------------------------------------------===//

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
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#define KILN_VERSION "0.1.0"

namespace py = pybind11;
using namespace mlir;

namespace {

/// One diagnostic as Python sees it.
struct DiagnosticRecord {
  std::string severity;
  std::string message;
  std::optional<std::string> file;
  std::optional<unsigned> line;
  std::optional<unsigned> col;
  /// Machine-readable facts a pass attached as diagnostic metadata (a
  /// dictionary with a "kind"), e.g. out_of_resources with required/limit.
  std::vector<std::pair<std::string, Attribute>> facts;
};

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

DiagnosticRecord makeRecord(const Diagnostic &diag) {
  DiagnosticRecord record{severityName(diag.getSeverity()),
                          diag.str(),
                          std::nullopt,
                          std::nullopt,
                          std::nullopt,
                          {}};
  for (const DiagnosticArgument &arg :
       const_cast<Diagnostic &>(diag).getMetadata())
    if (arg.getKind() == DiagnosticArgument::DiagnosticArgumentKind::Attribute)
      if (auto dict = dyn_cast<DictionaryAttr>(arg.getAsAttribute()))
        for (NamedAttribute field : dict)
          record.facts.emplace_back(field.getName().str(), field.getValue());
  if (std::optional<FileLineColRange> file = findFileLoc(diag.getLocation())) {
    record.file = file->getFilename().str();
    record.line = file->getStartLine();
    record.col = file->getStartColumn();
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

  std::vector<DiagnosticRecord> records;

private:
  ScopedDiagnosticHandler handler;
};

/// kiln._compiler.CompilationError; owned by the module object.
PyObject *compilationErrorType = nullptr;

/// Raises CompilationError with `records`; `fallback` becomes the message when
/// a failure came with no error diagnostic (a pass failing silently, or a
/// pipeline parser that writes to a stream).
[[noreturn]] void raiseCompilationError(std::vector<DiagnosticRecord> records,
                                        const std::string &fallback) {
  bool hasError = llvm::any_of(
      records, [](const DiagnosticRecord &r) { return r.severity == "error"; });
  if (!hasError)
    records.push_back(
        {"error", fallback, std::nullopt, std::nullopt, std::nullopt, {}});

  std::string joined;
  py::list diagnostics;
  for (const DiagnosticRecord &r : records) {
    if (!joined.empty())
      joined += "\n";
    if (r.file)
      joined += *r.file + ":" + std::to_string(*r.line) + ":" +
                std::to_string(*r.col) + ": ";
    joined += r.severity + ": " + r.message;

    py::dict d;
    d["severity"] = r.severity;
    d["message"] = r.message;
    d["file"] = r.file ? py::object(py::str(*r.file)) : py::none();
    d["line"] = r.line ? py::object(py::int_(*r.line)) : py::none();
    d["col"] = r.col ? py::object(py::int_(*r.col)) : py::none();
    py::dict facts;
    for (const auto &[name, value] : r.facts) {
      if (auto i = dyn_cast<IntegerAttr>(value))
        facts[py::str(name)] = py::int_(i.getInt());
      else if (auto str = dyn_cast<StringAttr>(value))
        facts[py::str(name)] = py::str(str.str());
    }
    d["facts"] = facts;
    diagnostics.append(d);
  }
  py::object error =
      py::reinterpret_borrow<py::object>(compilationErrorType)(joined);
  error.attr("diagnostics") = diagnostics;
  PyErr_SetObject(compilationErrorType, error.ptr());
  throw py::error_already_set();
}

[[noreturn]] void raiseCompilationError(const std::string &message) {
  raiseCompilationError({}, message);
}

/// A fresh context per call: nothing leaks between compiles, and without
/// threads a Python process does not grow a thread pool per context.
std::unique_ptr<MLIRContext> makeContext() {
  DialectRegistry registry;
  kiln::registerAllDialects(registry);
  auto context =
      std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  // The message and location say enough; a dump of the op is noise in an
  // exception.
  context->printOpOnDiagnostic(false);
  return context;
}

std::string version() {
  return "kiln-" KILN_VERSION " llvm-" LLVM_VERSION_STRING;
}

/// The F2-linear form C++ gives layout attribute `layoutText` on a tensor of
/// `shape`: (register, lane, warp) bases, or None when the text does not
/// parse or the layout does not fit the shape (the DSL then reports it).
py::object linearLayout(const std::string &layoutText,
                        const std::vector<int64_t> &shape) {
  if (shape.empty() || shape.size() > 8 ||
      llvm::any_of(shape, [](int64_t d) { return d <= 0 || d > (1 << 20); }))
    return py::none();
  std::unique_ptr<MLIRContext> context = makeContext();
  context->getOrLoadDialect<kiln::tile::TileDialect>();
  ScopedDiagnosticHandler quiet(context.get(),
                                [](Diagnostic &) { return success(); });
  Attribute attr = parseAttribute(layoutText, context.get());
  if (!attr)
    return py::none();
  auto type =
      RankedTensorType::get(shape, Float32Type::get(context.get()), attr);
  FailureOr<kiln::LinearLayout> ll = kiln::tile::getLinearLayout(type);
  if (failed(ll))
    return py::none();
  py::list out;
  for (auto dim : {kiln::LinearLayout::Register, kiln::LinearLayout::Lane,
                   kiln::LinearLayout::Warp}) {
    py::list bases;
    for (const kiln::LinearLayout::Basis &b : ll->getBases(dim)) {
      py::list coords;
      for (int32_t c : b)
        coords.append(c);
      bases.append(coords);
    }
    out.append(bases);
  }
  return py::tuple(out);
}

/// The first backend's default chip (KILN_BACKENDS order), or None.
py::object defaultTarget() {
  llvm::SmallVector<const kiln::Backend *> backends = kiln::getBackends();
  if (backends.empty())
    return py::none();
  return py::str(backends.front()->getDefaultTarget().str());
}

py::list knownTargets() {
  py::list targets;
  for (const kiln::TargetDesc *t : kiln::getKnownTargets()) {
    const kiln::Backend *backend = kiln::getBackend(*t);
    py::dict d;
    d["name"] = t->name.str();
    d["vendor"] = t->backend.str();
    d["chip"] = t->chip.str();
    d["warp_size"] = t->warpSize;
    d["max_shared_bytes"] = t->maxSharedBytes;
    d["max_vector_bytes"] = t->maxVectorBytes;
    d["max_threads_per_block"] = t->maxThreadsPerBlock;
    d["arch"] = t->arch;
    d["assembly"] = backend->getAssemblyName().str();
    d["binary"] = backend->getBinaryName().str();
    py::list env;
    for (llvm::StringRef var : backend->getToolEnvironment())
      env.append(py::str(var.str()));
    d["tool_environment"] = env;
    targets.append(d);
  }
  return targets;
}

/// Structured facts about a module, so Python reads no C++ text: the
/// shared memory it needs (tile.shared), its compile context and the names
/// of its kernels (public functions that return nothing).
py::dict moduleInfo(ModuleOp module) {
  py::dict info;
  using kiln::tile::TileDialect;
  MLIRContext *ctx = module->getContext();
  auto intOrNone = [](IntegerAttr a) -> py::object {
    return a ? py::object(py::int_(a.getInt())) : py::object(py::none());
  };
  IntegerAttr shared = TileDialect::SharedAttrHelper(ctx).getAttr(module);
  info["shared"] = shared ? shared.getInt() : 0;
  info["num_warps"] =
      intOrNone(TileDialect::NumWarpsAttrHelper(ctx).getAttr(module));
  StringAttr target = TileDialect::TargetAttrHelper(ctx).getAttr(module);
  info["target"] = target ? py::object(py::str(target.str())) : py::none();
  py::list kernels;
  py::dict kernelArgs;
  for (Operation &op : module.getBody()->getOperations()) {
    auto fn = dyn_cast<FunctionOpInterface>(&op);
    if (!fn || fn.isExternal() ||
        SymbolTable::getSymbolVisibility(&op) !=
            SymbolTable::Visibility::Public)
      continue;
    ArrayRef<Type> results = fn.getResultTypes();
    bool returnsNothing =
        results.empty() ||
        (results.size() == 1 && isa<LLVM::LLVMVoidType>(results.front()));
    if (!returnsNothing)
      continue;
    kernels.append(py::str(fn.getName().str()));
    // Each argument's attributes (alignment, divisibility, noalias ...) as
    // name -> attribute text, in argument order.
    py::list args;
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
      py::dict attrs;
      for (NamedAttribute attr : fn.getArgAttrs(i)) {
        std::string text;
        llvm::raw_string_ostream os(text);
        attr.getValue().print(os);
        attrs[py::str(attr.getName().str())] = text;
      }
      args.append(attrs);
    }
    kernelArgs[py::str(fn.getName().str())] = args;
  }
  info["kernels"] = kernels;
  info["kernel_args"] = kernelArgs;
  return info;
}

/// Parses, runs the pipeline; the module stays alive for the caller.
OwningOpRef<ModuleOp> runPipelineOn(MLIRContext *context,
                                    DiagnosticCollector &diags,
                                    const std::string &irText,
                                    const std::string &pipeline,
                                    const std::string &sourceName) {
  if (failed(kiln::checkNestingDepth(irText, sourceName, context)))
    raiseCompilationError(std::move(diags.records),
                          "cannot parse '" + sourceName + "'");

  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(irText, ParserConfig(context), sourceName);
  if (!module)
    raiseCompilationError(std::move(diags.records),
                          "cannot parse '" + sourceName + "'");

  std::string pipelineErrors;
  llvm::raw_string_ostream pipelineStream(pipelineErrors);
  FailureOr<OpPassManager> parsed = parsePassPipeline(pipeline, pipelineStream);
  if (failed(parsed))
    raiseCompilationError(std::move(diags.records),
                          "invalid pass pipeline '" + pipeline + "': " +
                              llvm::StringRef(pipelineErrors).trim().str());

  PassManager pm(context);
  static_cast<OpPassManager &>(pm) = std::move(*parsed);
  if (failed(pm.run(*module)))
    raiseCompilationError(std::move(diags.records),
                          "pass pipeline failed: " + pipeline);
  return module;
}

std::string printWithLocations(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().enableDebugInfo(/*enable=*/true,
                                                      /*prettyForm=*/false));
  return text;
}

std::string runPipeline(const std::string &irText, const std::string &pipeline,
                        const std::string &sourceName) {
  std::unique_ptr<MLIRContext> context = makeContext();
  DiagnosticCollector diags(*context);
  OwningOpRef<ModuleOp> module =
      runPipelineOn(context.get(), diags, irText, pipeline, sourceName);
  return printWithLocations(*module);
}

py::dict runPipelineWithInfo(const std::string &irText,
                             const std::string &pipeline,
                             const std::string &sourceName) {
  std::unique_ptr<MLIRContext> context = makeContext();
  DiagnosticCollector diags(*context);
  OwningOpRef<ModuleOp> module =
      runPipelineOn(context.get(), diags, irText, pipeline, sourceName);
  py::dict out;
  out["text"] = printWithLocations(*module);
  out["info"] = moduleInfo(*module);
  return out;
}

py::bytes translate(const std::string &llvmDialectText,
                    const std::string &targetName, const std::string &emit) {
  const kiln::TargetDesc *target = kiln::lookupTarget(targetName);
  if (!target)
    raiseCompilationError("unknown target '" + targetName +
                          "'; known targets: " + kiln::knownTargetNames());
  std::string emitError;
  std::optional<kiln::EmitKind> kind =
      kiln::parseEmitKind(emit, *target, emitError);
  if (!kind)
    raiseCompilationError(emitError);

  std::unique_ptr<MLIRContext> context = makeContext();
  DiagnosticCollector diags(*context);
  if (failed(kiln::checkNestingDepth(llvmDialectText, "<llvm-dialect>",
                                     context.get())))
    raiseCompilationError(std::move(diags.records),
                          "cannot parse the LLVM-dialect module");
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      llvmDialectText, ParserConfig(context.get()), "<llvm-dialect>");
  if (!module)
    raiseCompilationError(std::move(diags.records),
                          "cannot parse the LLVM-dialect module");

  FailureOr<std::string> artifact =
      kiln::serializeModule(*module, *target, *kind);
  if (failed(artifact))
    raiseCompilationError(std::move(diags.records),
                          "translation to " + emit + " failed");
  return py::bytes(*artifact);
}

} // namespace

PYBIND11_MODULE(_compiler, m) {
  m.doc() = "Kiln's compiler: parse IR, run pass pipelines, translate.";

  compilationErrorType = PyErr_NewExceptionWithDoc(
      "kiln._compiler.CompilationError",
      "A compile failed. args[0] is every diagnostic, one per line; "
      "`diagnostics` holds them as dicts with severity, message, file, line "
      "and col.",
      PyExc_Exception, nullptr);
  if (!compilationErrorType)
    throw py::error_already_set();
  m.add_object("CompilationError", py::handle(compilationErrorType));

  kiln::registerAllPasses();

  m.def("version", &version,
        "Kiln and LLVM versions, e.g. 'kiln-0.1.0 llvm-22.1.8'.");
  m.def("known_targets", &knownTargets,
        "The known-targets table as a list of dicts.");
  m.def("linear_layout", &linearLayout, py::arg("layout"), py::arg("shape"),
        "(register, lane, warp) bases of a layout attribute on a shape, or "
        "None");
  m.def("default_target", &defaultTarget,
        "The target compiled for when none is named (None without backends).");
  m.def("run_pipeline", &runPipeline, py::arg("ir_text"), py::arg("pipeline"),
        py::arg("source_name") = "kernel",
        "Parse and verify `ir_text`, run the textual pass `pipeline` (e.g. "
        "'builtin.module(canonicalize)') and return the module printed with "
        "locations.");
  m.def("run_pipeline_with_info", &runPipelineWithInfo, py::arg("ir_text"),
        py::arg("pipeline"), py::arg("source_name") = "kernel",
        "Like run_pipeline; returns {'text': module, 'info': {'shared', "
        "'num_warps', 'target', 'kernels'}} read from the resulting module.");
  m.def("translate", &translate, py::arg("llvm_dialect_text"),
        py::arg("target"), py::arg("emit"),
        "Translate an LLVM-dialect module for `target` (e.g. 'cuda:sm_90a') "
        "to `emit` (llvm, ptx, cubin, amdgcn or hsaco); returns bytes.");
}
