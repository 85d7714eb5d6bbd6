#pragma once
// <GraphBLAS.h> for C++: the header declares its C functions without extern "C" guards.

extern "C" {
#include <GraphBLAS.h>
}
