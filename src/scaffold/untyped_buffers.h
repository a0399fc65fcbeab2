// Buffers a program declares untyped (`void* sendbuff`, nccl-tests' `void** sendbuffs`, `char*`
// byte buffers) that its collectives move as one floating type. Bound as they are, the harness
// would treat them as bytes: fresh inputs would be the program's own values (often a cudaMemset's
// zeros, which verify nothing). cuco init gives such a bind the type the collectives name
// (`cuco_bind.as<float>().input(...)`, cuco/program/program.h), and the harness fills it with fresh
// values of that type. Contract: pure functions of the text.
#pragma once

#include <set>
#include <string>

namespace cuco::scaffold_internal {

// The C++ element type (`float`, `double`, `__half`, `__nv_bfloat16`) that every one of
// `datatypes` (NCCL datatype expressions in main's terms: `ncclFloat`, `ncclFloat32`) names; ""
// when one is not a floating type, they disagree, or there are none.
std::string FloatTypeOfDatatypes(const std::set<std::string>& datatypes);

// `datatype` as an NCCL datatype constant: itself when it is one (`ncclFloat`), else the one
// constant `code` ever gives the variable or member it names (`ncclDataType_t dtype = ncclBfloat16;`,
// `args->type` from `.type = ncclFloat`); itself when `code` gives it none or several.
std::string DatatypeValue(const std::string& code, const std::string& datatype);

// Whether `code` (the program's files) declares the last name of `expr` (`args->sendbuffs[0]`:
// `sendbuffs`) as a pointer to bytes, or an array or container of them: `void* x`, `void *a, *x`,
// `void** x`, `char* x`, `uint8_t* x`, `std::vector<void*> x`, and nowhere as a typed one (a
// helper's `void* C` parameter beside main's `__nv_bfloat16* C` is typed).
bool DeclaredUntyped(const std::string& code, const std::string& expr);

// The floating element type `code` declares the last name of `expr` a pointer to (or an array or
// container of them), spelled as C++ does: "float", "double", "__half", "__nv_bfloat16" (`half` and
// `nv_bfloat16` are those); "" when it is declared no floating one, or two that differ.
std::string DeclaredFloatType(const std::string& code, const std::string& expr);

}  // namespace cuco::scaffold_internal
