/*===- pit-capi-test.c - Test of the PIT C API ----------------------------===*/

// RUN: pit-capi-test 2>&1 | FileCheck %s

#include "PIT-c/Dialects.h"
#include "PIT-c/Registration.h"
#include "PIT-c/Target.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <stdlib.h>

static void printToStderr(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stderr);
}

static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  (void)userData;
  fprintf(stderr, "diagnostic: ");
  mlirDiagnosticPrint(diagnostic, printToStderr, NULL);
  fprintf(stderr, "\n");
  return mlirLogicalResultSuccess();
}

static MlirContext makeContext(void) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirPITRegisterAllDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  return ctx;
}

// CHECK-LABEL: testDialectHandle
static void testDialectHandle(void) {
  fprintf(stderr, "testDialectHandle\n");
  MlirContext ctx = mlirContextCreate();
  MlirDialectHandle handle = mlirGetDialectHandle__pit__();
  mlirDialectHandleRegisterDialect(handle, ctx);
  MlirDialect pit = mlirDialectHandleLoadDialect(handle, ctx);
  MlirStringRef ns = mlirDialectGetNamespace(pit);
  // CHECK: namespace: pit
  fprintf(stderr, "namespace: %.*s\n", (int)ns.length, ns.data);
  mlirContextDestroy(ctx);
}

// CHECK-LABEL: testSparseAttr
static void testSparseAttr(void) {
  fprintf(stderr, "testSparseAttr\n");
  MlirContext ctx = makeContext();
  int64_t extents[] = {32, 1, 1, 64};
  MlirAttribute mark = mlirPITSparseAttrGet(ctx, 0, 2, 2, extents);
  // CHECK: #pit.sparse<operand = 0, micro_tiles = [32x1, 1x64]>
  mlirAttributePrint(mark, printToStderr, NULL);
  fprintf(stderr, "\n");
  // CHECK: isa: 1 operand: 0 tiles: 2 rank: 2 extent[1][1]: 64
  fprintf(stderr, "isa: %d operand: %u tiles: %ld rank: %ld extent[1][1]: %ld\n",
          mlirAttributeIsAPITSparseAttr(mark), mlirPITSparseAttrGetOperand(mark),
          (long)mlirPITSparseAttrGetNumMicroTiles(mark),
          (long)mlirPITSparseAttrGetMicroTileRank(mark),
          (long)mlirPITSparseAttrGetMicroTileExtent(mark, 1, 1));

  // An invalid shape gives a null attribute and a diagnostic, not a crash.
  int64_t bad[] = {32, 0};
  // CHECK: diagnostic: expects positive micro-tile extents
  // CHECK: invalid: null
  MlirAttribute invalid = mlirPITSparseAttrGet(ctx, 0, 1, 2, bad);
  fprintf(stderr, "invalid: %s\n", mlirAttributeIsNull(invalid) ? "null" : "set");

  // CHECK: diagnostic: expects at least one candidate micro-tile
  // CHECK: empty: null
  MlirAttribute empty = mlirPITSparseAttrGet(ctx, 0, 0, 2, extents);
  fprintf(stderr, "empty: %s\n", mlirAttributeIsNull(empty) ? "null" : "set");

  MlirStringRef name = mlirPITGetSparseAttrName();
  // CHECK: mark name: pit.sparse
  fprintf(stderr, "mark name: %.*s\n", (int)name.length, name.data);
  mlirContextDestroy(ctx);
}

// CHECK-LABEL: testCombinerAttr
static void testCombinerAttr(void) {
  fprintf(stderr, "testCombinerAttr\n");
  MlirContext ctx = makeContext();
  MlirAttribute add =
      mlirPITCombinerAttrGet(ctx, mlirStringRefCreateFromCString("maximumf"));
  MlirStringRef kind = mlirPITCombinerAttrGetKind(add);
  // CHECK: combiner: 1 maximumf
  fprintf(stderr, "combiner: %d %.*s\n", mlirAttributeIsAPITCombinerAttr(add),
          (int)kind.length, kind.data);
  // CHECK: diagnostic: unknown pit combiner 'sub'
  // CHECK: sub: null
  MlirAttribute sub =
      mlirPITCombinerAttrGet(ctx, mlirStringRefCreateFromCString("sub"));
  fprintf(stderr, "sub: %s\n", mlirAttributeIsNull(sub) ? "null" : "set");
  mlirContextDestroy(ctx);
}

// CHECK-LABEL: testParseAndRunPipeline
static void testParseAndRunPipeline(void) {
  fprintf(stderr, "testParseAndRunPipeline\n");
  MlirContext ctx = makeContext();
  mlirPITRegisterAllPasses();
  const char *source =
      "func.func @f(%a: memref<64x64xf32>, %b: memref<64x64xf32>,\n"
      "             %c: memref<64x64xf32>) {\n"
      "  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>)\n"
      "                outs(%c : memref<64x64xf32>)\n"
      "  return\n"
      "}\n";
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "parse failed\n");
    exit(1);
  }
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      opm,
      mlirStringRefCreateFromCString(
          "builtin.module(pit-mark-sparse{op-name=linalg.matmul operand=0 "
          "micro-tiles=32x1,1x64})"),
      printToStderr, NULL);
  // CHECK: pipeline parsed: 1
  fprintf(stderr, "pipeline parsed: %d\n", mlirLogicalResultIsSuccess(parsed));
  MlirLogicalResult ran =
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  // CHECK: pipeline ran: 1
  fprintf(stderr, "pipeline ran: %d\n", mlirLogicalResultIsSuccess(ran));
  // CHECK: linalg.matmul {pit.sparse = #pit.sparse<operand = 0, micro_tiles = [32x1, 1x64]>}
  mlirOperationPrint(mlirModuleGetOperation(module), printToStderr, NULL);
  fprintf(stderr, "\n");
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
}

static MlirModule parseOrExit(MlirContext ctx, const char *source) {
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "parse failed\n");
    exit(1);
  }
  return module;
}

// CHECK-LABEL: testTranslations
static void testTranslations(void) {
  fprintf(stderr, "testTranslations\n");
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirPITRegisterAllDialects(registry);
  mlirPITRegisterLLVMIRTranslations(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);

  MlirModule lowered = parseOrExit(ctx, "llvm.func @twice(%x: i64) -> i64 {\n"
                                        "  %y = llvm.add %x, %x : i64\n"
                                        "  llvm.return %y : i64\n"
                                        "}\n");
  // CHECK: define i64 @twice(i64 %0)
  // CHECK: LLVM IR: 1
  MlirLogicalResult translated = mlirPITTranslateModuleToLLVMIR(
      mlirModuleGetOperation(lowered), printToStderr, NULL);
  fprintf(stderr, "LLVM IR: %d\n", mlirLogicalResultIsSuccess(translated));

  MlirModule program = parseOrExit(
      ctx, "func.func @scale(%x: memref<4x8xf32>, %y: memref<8xi32>) {\n"
           "  return\n"
           "}\n");
  // CHECK: static const int64_t scale_shape0[] = {4, 8};
  // CHECK: PIT_ENTRY_EXPORT int pit_scale(const PITTensor *args, int64_t numArgs)
  // CHECK: C entry: 1
  MlirLogicalResult entry = mlirPITTranslateModuleToCEntry(
      mlirModuleGetOperation(program), printToStderr, NULL);
  fprintf(stderr, "C entry: %d\n", mlirLogicalResultIsSuccess(entry));

  // A function body is not a module: a diagnostic, not a crash.
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(program));
  // CHECK: diagnostic: expects a builtin.module, got 'func.func'
  // CHECK: not a module: 0
  MlirLogicalResult wrong =
      mlirPITTranslateModuleToLLVMIR(func, printToStderr, NULL);
  fprintf(stderr, "not a module: %d\n", mlirLogicalResultIsSuccess(wrong));
  mlirModuleDestroy(program);
  mlirModuleDestroy(lowered);
  mlirContextDestroy(ctx);
}

int main(void) {
  testDialectHandle();
  testSparseAttr();
  testCombinerAttr();
  testParseAndRunPipeline();
  testTranslations();
  return 0;
}
