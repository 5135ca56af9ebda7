//===- AMDGPU.cpp - gpu.module to HSACO, and the kernel manifest ---------===//
#include "fmha/Target/AMDGPU.h"
#include "fmha/Support/Chips.h"
#include "fmha/Target/GPUTarget.h"

#include "mlir/Conversion/AMDGPUToROCDL/AMDGPUToROCDL.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/AMDGPU/Utils/Chipset.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELF.h"
#include "llvm/Object/ELFTypes.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::fmha;

//===----------------------------------------------------------------------===//
// Serialization
//===----------------------------------------------------------------------===//

void mlir::fmha::registerAMDGPUTargetDependencies(DialectRegistry &registry) {
  registerGPUTargetDependencies(registry);
  registry.insert<amdgpu::AMDGPUDialect, ROCDL::ROCDLDialect>();
  // gpu-module-to-binary: the #rocdl.target serializer and the rocdl ops'
  // translation to LLVM IR.
  ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
  registerROCDLDialectTranslation(registry);
}

LogicalResult
mlir::fmha::attachROCDLTarget(ModuleOp module,
                              const AMDGPUTargetOptions &options) {
  MLIRContext *ctx = module.getContext();
  // An input without rocdl ops has not loaded the dialect of the attribute.
  ctx->getOrLoadDialect<ROCDL::ROCDLDialect>();
  // The conversions parse the chip as a chipset; fail here, with a location,
  // rather than in their option parsing.
  if (failed(amdgpu::Chipset::parse(options.chip)))
    return module.emitError() << "invalid AMDGPU chip '" << options.chip
                              << "' (expected gfxNNN, e.g. gfx942)";
  auto emitError = [&] { return module.emitError(); };
  StringRef triple = "amdgcn-amd-amdhsa", abi = "600";
  if (failed(ROCDL::ROCDLTargetAttr::verify(
          emitError, static_cast<int>(options.optLevel), triple, options.chip,
          options.features, abi, /*flags=*/nullptr, /*link=*/nullptr)))
    return failure();
  auto target =
      ROCDL::ROCDLTargetAttr::get(ctx, static_cast<int>(options.optLevel),
                                  triple, options.chip, options.features, abi);
  WalkResult result = module.walk([&](gpu::GPUModuleOp gpuModule) {
    ArrayAttr targets = gpuModule.getTargetsAttr();
    if (!targets || targets.empty()) {
      gpuModule.setTargetsAttr(ArrayAttr::get(ctx, {target}));
      return WalkResult::advance();
    }
    // The conversions take the chipset from the options, so a target of
    // another chip (or a second target) would yield a mismatched object.
    auto existing = dyn_cast<ROCDL::ROCDLTargetAttr>(targets[0]);
    if (targets.size() != 1 || !existing ||
        existing.getChip() != options.chip) {
      gpuModule.emitOpError()
          << "must have no target or exactly one #rocdl.target of chip '"
          << options.chip << "', has " << targets;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

void mlir::fmha::buildAMDGPUToROCDLPassPipeline(
    OpPassManager &pm, const AMDGPUTargetOptions &options) {
  OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());
  // Subviews of the kernel's memrefs (the page list of one sequence).
  gpuPm.addPass(memref::createExpandStridedMetadataPass());
  gpuPm.addPass(createLowerAffinePass());
  gpuPm.addPass(createSCFToControlFlowPass());
  ConvertAMDGPUToROCDLPassOptions amdgpuOptions;
  amdgpuOptions.chipset = options.chip;
  gpuPm.addPass(createConvertAMDGPUToROCDLPass(amdgpuOptions));
  ConvertGpuOpsToROCDLOpsOptions gpuOptions;
  gpuOptions.chipset = options.chip;
  gpuOptions.useBarePtrCallConv = options.useBarePtrCallConv;
  gpuPm.addPass(createConvertGpuOpsToROCDLOps(gpuOptions));
  gpuPm.addPass(createCanonicalizerPass());
  gpuPm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

/// The linker gpu-module-to-binary{format=bin} runs. When it is missing the
/// pass only says "lld invocation failed"; this says which file was looked for.
bool mlir::fmha::toolkitHasLld(StringRef toolkit) {
  SmallString<128> lld(toolkit);
  llvm::sys::path::append(lld, "llvm", "bin", "ld.lld");
  return !toolkit.empty() && llvm::sys::fs::can_execute(lld);
}

static LogicalResult checkToolkit(ModuleOp module, StringRef toolkit) {
  if (toolkitHasLld(toolkit))
    return success();
  SmallString<128> lld(toolkit);
  llvm::sys::path::append(lld, "llvm", "bin", "ld.lld");
  return module.emitError()
         << "HSACO linking needs the toolkit folder's llvm/bin/ld.lld, "
         << "not found at '" << lld << "'";
}

/// Runs the back half with `format` on a clone of `module` and returns the
/// payload of the one object it yields.
static FailureOr<std::string> serialize(ModuleOp module, StringRef format,
                                        StringRef toolkit,
                                        const AMDGPUTargetOptions &options) {
  MLIRContext *ctx = module.getContext();
  DialectRegistry registry;
  registerAMDGPUTargetDependencies(registry);
  ctx->appendDialectRegistry(registry);

  size_t numGpuModules = 0;
  module.walk([&](gpu::GPUModuleOp) { ++numGpuModules; });
  if (numGpuModules != 1)
    return module.emitError()
           << "expected exactly one gpu.module to serialize, found "
           << numGpuModules;

  OwningOpRef<ModuleOp> clone(module.clone());
  if (failed(attachROCDLTarget(*clone, options)))
    return failure();
  // Two runs, so that an IR error is reported before a missing linker.
  PassManager lowering(ctx, ModuleOp::getOperationName());
  buildAMDGPUToROCDLPassPipeline(lowering, options);
  if (failed(lowering.run(*clone)))
    return failure();
  if (format == "bin" && failed(checkToolkit(module, toolkit)))
    return failure();
  PassManager binary(ctx, ModuleOp::getOperationName());
  buildGPUSerializePassPipeline(binary, format, toolkit);
  if (failed(binary.run(*clone)))
    return failure();

  SmallVector<gpu::BinaryOp> binaries(clone->getOps<gpu::BinaryOp>());
  if (binaries.size() != 1 || binaries[0].getObjects().size() != 1)
    return module.emitError()
           << "gpu-module-to-binary gave " << binaries.size()
           << " gpu.binary ops, expected one with one object";
  auto object = cast<gpu::ObjectAttr>(binaries[0].getObjects()[0]);
  return object.getObject().getValue().str();
}

FailureOr<SmallVector<char>>
mlir::fmha::serializeToHsaco(ModuleOp module, StringRef toolkit,
                             const AMDGPUTargetOptions &options) {
  FailureOr<std::string> bytes = serialize(module, "bin", toolkit, options);
  if (failed(bytes))
    return failure();
  return SmallVector<char>(bytes->begin(), bytes->end());
}

FailureOr<std::string>
mlir::fmha::serializeToIsa(ModuleOp module,
                           const AMDGPUTargetOptions &options) {
  return serialize(module, "isa", /*toolkit=*/"", options);
}

//===----------------------------------------------------------------------===//
// Manifest
//===----------------------------------------------------------------------===//

namespace {
using llvm::createStringError;
using llvm::Error;
using llvm::Expected;
namespace msgpack = llvm::msgpack;
using ELFT = llvm::object::ELF64LE;

/// Typed access to one map of the metadata, with errors that name the key
/// and where it sits (`amdhsa.kernels[0].args[2]`).
class MapReader {
public:
  MapReader(msgpack::DocNode node, std::string where)
      : node(node), where(std::move(where)) {}

  Error check() const {
    if (!node.isMap())
      return createStringError("%s is not a map", where.c_str());
    return Error::success();
  }

  std::optional<msgpack::DocNode> find(StringRef key) {
    msgpack::MapDocNode &map = node.getMap();
    auto it = map.find(key);
    if (it == map.end())
      return std::nullopt;
    return it->second;
  }

  Expected<std::optional<uint64_t>> optUInt(StringRef key) {
    std::optional<msgpack::DocNode> value = find(key);
    if (!value)
      return std::nullopt;
    return toUInt(*value, key);
  }

  Expected<uint64_t> uint(StringRef key) {
    Expected<std::optional<uint64_t>> value = optUInt(key);
    if (!value)
      return value.takeError();
    if (!*value)
      return missing(key);
    return **value;
  }

  Expected<std::string> optString(StringRef key) {
    std::optional<msgpack::DocNode> value = find(key);
    if (!value)
      return std::string();
    if (!value->isString())
      return createStringError("%s.%s is not a string", where.c_str(),
                               key.str().c_str());
    return value->getString().str();
  }

  Expected<std::string> string(StringRef key) {
    if (!find(key))
      return missing(key);
    return optString(key);
  }

  Expected<uint64_t> toUInt(msgpack::DocNode value, StringRef key) {
    if (value.getKind() == msgpack::Type::UInt)
      return value.getUInt();
    if (value.getKind() == msgpack::Type::Int && value.getInt() >= 0)
      return static_cast<uint64_t>(value.getInt());
    return createStringError("%s.%s is not an unsigned integer", where.c_str(),
                             key.str().c_str());
  }

  const std::string &getWhere() const { return where; }

private:
  Error missing(StringRef key) {
    return createStringError("%s has no %s", where.c_str(), key.str().c_str());
  }

  msgpack::DocNode node;
  std::string where;
};
} // namespace

/// Checks that `blob` is one well-formed msgpack object whose every map key
/// is a string, before upstream's msgpack::Document reads it: that reader
/// trusts its input (a map used as a map key reaches an llvm_unreachable in
/// DocNode's ordering; in a release build of LLVM, undefined behaviour that
/// crashed fmha-elf-manifest, found by ElfManifestFuzzer). Iterative, with a
/// depth limit, and every claimed length is checked against the bytes left,
/// so the check is linear in the blob.
static Error checkMsgPack(StringRef blob) {
  constexpr size_t kMaxDepth = 64;
  const auto *p = reinterpret_cast<const uint8_t *>(blob.data());
  const uint8_t *end = p + blob.size();
  auto bad = [&](const char *what) {
    return createStringError("NT_AMDGPU_METADATA is not valid msgpack: %s at "
                             "byte %zu",
                             what, static_cast<size_t>(p - reinterpret_cast<const uint8_t *>(blob.data())));
  };
  auto be = [&](unsigned n, uint64_t &v) {
    if (static_cast<size_t>(end - p) < n)
      return false;
    v = 0;
    for (unsigned i = 0; i < n; ++i)
      v = (v << 8) | *p++;
    return true;
  };
  // Per open container: objects still to read, and whether the next one is
  // a map key.
  struct Open {
    uint64_t left;
    bool map;
    bool keyNext;
  };
  SmallVector<Open, 16> stack;
  uint64_t roots = 0;
  while (true) {
    while (!stack.empty() && stack.back().left == 0) {
      stack.pop_back();
    }
    if (stack.empty() && roots == 1)
      break;
    if (p == end)
      return bad("truncated");
    bool isKey = false;
    if (stack.empty()) {
      ++roots;
    } else {
      Open &o = stack.back();
      isKey = o.map && o.keyNext;
      if (o.map)
        o.keyNext = !o.keyNext;
      if (!o.map || !isKey)
        --o.left;
    }
    const uint8_t c = *p++;
    uint64_t n = 0, count = 0;
    bool container = false, map = false, isString = false;
    if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3) {
    } else if (c >= 0x80 && c <= 0x8f) {
      container = map = true, count = c & 0x0f;
    } else if (c >= 0x90 && c <= 0x9f) {
      container = true, count = c & 0x0f;
    } else if (c >= 0xa0 && c <= 0xbf) {
      isString = true, n = c & 0x1f;
    } else {
      switch (c) {
      case 0xc4: case 0xc5: case 0xc6: // bin 8/16/32
        if (!be(1u << (c - 0xc4), n)) return bad("truncated length");
        break;
      case 0xc7: case 0xc8: case 0xc9: // ext 8/16/32: length, then type
        if (!be(1u << (c - 0xc7), n)) return bad("truncated length");
        n += 1;
        break;
      case 0xca: n = 4; break;
      case 0xcb: n = 8; break;
      case 0xcc: case 0xcd: case 0xce: case 0xcf: n = 1u << (c - 0xcc); break;
      case 0xd0: case 0xd1: case 0xd2: case 0xd3: n = 1u << (c - 0xd0); break;
      case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8:
        n = 1 + (1u << (c - 0xd4)); // fixext: type, then 1..16 bytes
        break;
      case 0xd9: case 0xda: case 0xdb: // str 8/16/32
        if (!be(1u << (c - 0xd9), n)) return bad("truncated length");
        isString = true;
        break;
      case 0xdc: case 0xdd: // array 16/32
        if (!be(c == 0xdc ? 2 : 4, count)) return bad("truncated length");
        container = true;
        break;
      case 0xde: case 0xdf: // map 16/32
        if (!be(c == 0xde ? 2 : 4, count)) return bad("truncated length");
        container = map = true;
        break;
      default: // 0xc1: never used
        return bad("reserved type byte 0xc1");
      }
    }
    if (isKey && !isString)
      return bad("a map key that is not a string");
    if (static_cast<uint64_t>(end - p) < n)
      return bad("a length past the end");
    p += n;
    if (container) {
      // Each element takes at least one byte (a map entry two).
      if (count > static_cast<uint64_t>(end - p) / (map ? 2 : 1))
        return bad("more elements than bytes");
      if (stack.size() == kMaxDepth)
        return bad("nesting deeper than 64");
      stack.push_back({count, map, true});
    }
  }
  if (p != end)
    return bad("bytes after the object");
  return Error::success();
}

/// The descriptor of the NT_AMDGPU_METADATA note ("AMDGPU" owner), searched
/// in the SHT_NOTE sections and, for stripped objects, the PT_NOTE segments.
static Expected<StringRef>
findMetadataNote(const llvm::object::ELFFile<ELFT> &file) {
  auto isMetadata = [](const typename ELFT::Note &note) {
    return note.getType() == llvm::ELF::NT_AMDGPU_METADATA &&
           note.getName() == "AMDGPU";
  };
  auto sections = file.sections();
  if (!sections)
    return sections.takeError();
  for (const typename ELFT::Shdr &section : *sections) {
    if (section.sh_type != llvm::ELF::SHT_NOTE)
      continue;
    Error err = Error::success();
    for (const typename ELFT::Note note : file.notes(section, err))
      if (isMetadata(note)) {
        llvm::consumeError(std::move(err));
        return note.getDescAsStringRef(section.sh_addralign);
      }
    if (err)
      return std::move(err);
  }
  auto segments = file.program_headers();
  if (!segments)
    return segments.takeError();
  for (const typename ELFT::Phdr &segment : *segments) {
    if (segment.p_type != llvm::ELF::PT_NOTE)
      continue;
    Error err = Error::success();
    for (const typename ELFT::Note note : file.notes(segment, err))
      if (isMetadata(note)) {
        llvm::consumeError(std::move(err));
        return note.getDescAsStringRef(segment.p_align);
      }
    if (err)
      return std::move(err);
  }
  return createStringError("no NT_AMDGPU_METADATA note (code object v3 or "
                           "newer expected)");
}

static Expected<KernelArg> readArg(MapReader arg) {
  if (Error err = arg.check())
    return std::move(err);
  KernelArg result;
  auto offset = arg.uint(".offset");
  if (!offset)
    return offset.takeError();
  result.offset = *offset;
  auto size = arg.uint(".size");
  if (!size)
    return size.takeError();
  result.size = *size;
  auto align = arg.optUInt(".align");
  if (!align)
    return align.takeError();
  result.align = *align;
  auto valueKind = arg.string(".value_kind");
  if (!valueKind)
    return valueKind.takeError();
  result.valueKind = *valueKind;
  std::pair<const char *, std::string *> strings[] = {
      {".name", &result.name},
      {".address_space", &result.addressSpace},
      {".actual_access", &result.actualAccess}};
  for (auto [key, dest] : strings) {
    auto value = arg.optString(key);
    if (!value)
      return value.takeError();
    *dest = *value;
  }
  return result;
}

static Expected<KernelInfo> readKernel(MapReader kernel) {
  if (Error err = kernel.check())
    return std::move(err);
  KernelInfo info;
  auto name = kernel.string(".name");
  if (!name)
    return name.takeError();
  info.name = *name;
  auto symbol = kernel.string(".symbol");
  if (!symbol)
    return symbol.takeError();
  info.symbol = *symbol;

  struct Field {
    const char *key;
    uint64_t *dest;
    bool required;
  };
  // agpr_count exists on MFMA chips only; the spill counts and
  // max_flat_workgroup_size are always emitted by LLVM for code object v3+.
  Field fields[] = {
      {".kernarg_segment_size", &info.kernargSegmentSize, true},
      {".kernarg_segment_align", &info.kernargSegmentAlign, true},
      {".group_segment_fixed_size", &info.groupSegmentFixedSize, true},
      {".private_segment_fixed_size", &info.privateSegmentFixedSize, true},
      {".sgpr_count", &info.sgprCount, true},
      {".vgpr_count", &info.vgprCount, true},
      {".agpr_count", &info.agprCount, false},
      {".sgpr_spill_count", &info.sgprSpillCount, true},
      {".vgpr_spill_count", &info.vgprSpillCount, true},
      {".wavefront_size", &info.wavefrontSize, true},
      {".max_flat_workgroup_size", &info.maxFlatWorkgroupSize, true},
  };
  for (const Field &field : fields) {
    auto value = kernel.optUInt(field.key);
    if (!value)
      return value.takeError();
    if (!*value && field.required)
      return createStringError("%s has no %s", kernel.getWhere().c_str(),
                               field.key);
    *field.dest = value->value_or(0);
  }

  if (std::optional<msgpack::DocNode> reqd =
          kernel.find(".reqd_workgroup_size")) {
    if (!reqd->isArray() || reqd->getArray().size() != 3)
      return createStringError("%s.reqd_workgroup_size is not 3 integers",
                               kernel.getWhere().c_str());
    std::array<uint64_t, 3> dims;
    for (auto [i, dim] : llvm::enumerate(reqd->getArray())) {
      auto value = kernel.toUInt(dim, ".reqd_workgroup_size");
      if (!value)
        return value.takeError();
      dims[i] = *value;
    }
    info.reqdWorkgroupSize = dims;
  }

  if (std::optional<msgpack::DocNode> args = kernel.find(".args")) {
    if (!args->isArray())
      return createStringError("%s.args is not an array",
                               kernel.getWhere().c_str());
    for (auto [i, arg] : llvm::enumerate(args->getArray())) {
      auto parsed = readArg(MapReader(
          arg, (kernel.getWhere() + ".args[" + llvm::Twine(i) + "]").str()));
      if (!parsed)
        return parsed.takeError();
      info.args.push_back(std::move(*parsed));
    }
  }
  return info;
}

Expected<KernelManifest>
mlir::fmha::readAmdgpuManifestOrError(ArrayRef<char> elf) {
  StringRef bytes(elf.data(), elf.size());
  if (!bytes.starts_with(llvm::ELF::ElfMagic))
    return createStringError("not an ELF file");
  if (bytes.size() <= llvm::ELF::EI_DATA ||
      bytes[llvm::ELF::EI_CLASS] != llvm::ELF::ELFCLASS64 ||
      bytes[llvm::ELF::EI_DATA] != llvm::ELF::ELFDATA2LSB)
    return createStringError("not a 64-bit little-endian ELF file");
  // llvm::object reads the headers in place and rejects a misaligned base;
  // a caller's ArrayRef may point anywhere, so copy it then.
  std::unique_ptr<llvm::MemoryBuffer> aligned;
  if (reinterpret_cast<uintptr_t>(bytes.data()) % alignof(uint64_t) != 0) {
    aligned = llvm::MemoryBuffer::getMemBufferCopy(bytes);
    bytes = aligned->getBuffer();
  }
  auto file = llvm::object::ELFFile<ELFT>::create(bytes);
  if (!file)
    return file.takeError();
  if (file->getHeader().e_machine != llvm::ELF::EM_AMDGPU)
    return createStringError("not an AMDGPU code object (e_machine %u)",
                             unsigned(file->getHeader().e_machine));

  Expected<StringRef> blob = findMetadataNote(*file);
  if (!blob)
    return blob.takeError();
  msgpack::Document doc;
  if (Error err = checkMsgPack(*blob))
    return std::move(err);
  if (!doc.readFromBlob(*blob, /*Multi=*/false))
    return createStringError("NT_AMDGPU_METADATA is not valid msgpack");

  MapReader root(doc.getRoot(), "NT_AMDGPU_METADATA");
  if (Error err = root.check())
    return std::move(err);
  KernelManifest manifest;
  auto target = root.string("amdhsa.target");
  if (!target)
    return target.takeError();
  manifest.target = *target;
  if (std::optional<msgpack::DocNode> version = root.find("amdhsa.version")) {
    if (!version->isArray())
      return createStringError("amdhsa.version is not an array");
    for (msgpack::DocNode part : version->getArray()) {
      auto value = root.toUInt(part, "amdhsa.version");
      if (!value)
        return value.takeError();
      manifest.version.push_back(*value);
    }
  }
  std::optional<msgpack::DocNode> kernels = root.find("amdhsa.kernels");
  if (!kernels || !kernels->isArray())
    return createStringError("NT_AMDGPU_METADATA has no amdhsa.kernels array");
  for (auto [i, kernel] : llvm::enumerate(kernels->getArray())) {
    auto info = readKernel(
        MapReader(kernel, ("amdhsa.kernels[" + llvm::Twine(i) + "]").str()));
    if (!info)
      return info.takeError();
    manifest.kernels.push_back(std::move(*info));
  }
  return manifest;
}

FailureOr<KernelManifest> mlir::fmha::readAmdgpuManifest(ArrayRef<char> elf) {
  Expected<KernelManifest> manifest = readAmdgpuManifestOrError(elf);
  if (!manifest) {
    llvm::logAllUnhandledErrors(manifest.takeError(), llvm::errs(),
                                "error: AMDGPU code object: ");
    return failure();
  }
  return std::move(*manifest);
}

StringRef mlir::fmha::chipFromTargetId(StringRef targetId) {
  // amdgcn-amd-amdhsa--gfx942[:feature+...]: the processor follows the
  // (empty) environment field.
  size_t pos = targetId.find("--");
  if (pos == StringRef::npos)
    return {};
  return targetId.drop_front(pos + 2).split(':').first;
}

static constexpr const char *kWavesPerSimdRule =
    "gfx90a/gfx942/gfx950 wave64: min(8, floor(512 / alignTo(max(vgpr_count, "
    "1), 8))); SGPR and LDS limits not counted";

std::optional<unsigned> mlir::fmha::wavesPerSimdByVgprs(StringRef chip,
                                                        uint64_t vgprCount) {
  // The chip table's rule (Chips.h): one unified VGPR+AGPR file per lane.
  const VgprOccupancy *rule = lookupVgprOccupancy(chip);
  if (!rule)
    return std::nullopt;
  uint64_t allocated = llvm::alignTo(std::max<uint64_t>(vgprCount, 1),
                                     static_cast<uint64_t>(rule->granule));
  return static_cast<unsigned>(
      std::min(static_cast<uint64_t>(rule->maxWaves),
               static_cast<uint64_t>(rule->vgprsPerLane) / allocated));
}

std::string mlir::fmha::toJson(const KernelManifest &manifest) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os, /*IndentSize=*/2);
  StringRef chip = chipFromTargetId(manifest.target);
  json.object([&] {
    json.attribute("target", manifest.target);
    json.attributeArray("version", [&] {
      for (uint64_t part : manifest.version)
        json.value(part);
    });
    json.attributeArray("kernels", [&] {
      for (const KernelInfo &kernel : manifest.kernels) {
        json.object([&] {
          json.attribute("name", kernel.name);
          json.attribute("symbol", kernel.symbol);
          json.attributeArray("args", [&] {
            for (const KernelArg &arg : kernel.args) {
              json.object([&] {
                json.attribute("offset", arg.offset);
                json.attribute("size", arg.size);
                if (arg.align)
                  json.attribute("align", *arg.align);
                if (!arg.name.empty())
                  json.attribute("name", arg.name);
                json.attribute("value_kind", arg.valueKind);
                if (!arg.addressSpace.empty())
                  json.attribute("address_space", arg.addressSpace);
                if (!arg.actualAccess.empty())
                  json.attribute("actual_access", arg.actualAccess);
              });
            }
          });
          json.attribute("kernarg_segment_size", kernel.kernargSegmentSize);
          json.attribute("kernarg_segment_align", kernel.kernargSegmentAlign);
          json.attribute("group_segment_fixed_size",
                         kernel.groupSegmentFixedSize);
          json.attribute("private_segment_fixed_size",
                         kernel.privateSegmentFixedSize);
          json.attribute("sgpr_count", kernel.sgprCount);
          json.attribute("vgpr_count", kernel.vgprCount);
          json.attribute("agpr_count", kernel.agprCount);
          json.attribute("sgpr_spill_count", kernel.sgprSpillCount);
          json.attribute("vgpr_spill_count", kernel.vgprSpillCount);
          json.attribute("wavefront_size", kernel.wavefrontSize);
          json.attribute("max_flat_workgroup_size",
                         kernel.maxFlatWorkgroupSize);
          if (kernel.reqdWorkgroupSize)
            json.attributeArray("reqd_workgroup_size", [&] {
              for (uint64_t dim : *kernel.reqdWorkgroupSize)
                json.value(dim);
            });
          // Computed here, not read from the note: kept apart and labelled.
          if (std::optional<unsigned> waves =
                  wavesPerSimdByVgprs(chip, kernel.vgprCount))
            json.attributeObject("derived", [&] {
              json.attribute("waves_per_simd_by_vgprs", *waves);
              json.attribute("rule", kWavesPerSimdRule);
            });
        });
      }
    });
  });
  os << "\n";
  return text;
}
