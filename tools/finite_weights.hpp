#pragma once
// The path commands (apsp, path, sssp) refuse NaN and infinite weights where they are read, with
// the file and line (kleene/io/finite.hpp); the library refuses them too (path_weights.hpp).

#include <kleene/csr_matrix.hpp>
#include <kleene/io/finite.hpp>

#include <cmath>
#include <string>
#include <string_view>
#include <type_traits>

namespace kleene::tools {

template <class T, class Index>
void require_finite_weights(csr_matrix<T, Index> const& a, std::string const& path,
                            std::string_view what) {
    if constexpr (std::is_floating_point_v<T>) {
        for (std::size_t i = 0; i < a.rows(); ++i)
            for (std::size_t k = a.row_begin(i); k < a.row_end(i); ++k)
                if (!std::isfinite(a.value(k)))
                    io::throw_nonfinite_value(path, what, i, static_cast<std::size_t>(a.col_idx()[k]));
    }
}

}  // namespace kleene::tools
