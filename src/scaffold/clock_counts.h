// Counts of the iteration's work that the program sets from a time it measured (cuco init): a
// benchmark calibrating how much compute to overlap with its communication
// (`const int repsPerStage = repsFor(WL_COMPUTE, tCommAll / nb);`, `tCommAll` a timing helper's result
// around the communication). The harness runs the program's set-up for every candidate, the
// candidate's own code included, so each candidate's iteration would do the work its own speed chose:
// its time would not compare with the seed's, nor its outputs with the reference's.
#pragma once

#include <string>
#include <vector>

namespace cuco::scaffold_internal {

// The integer variables of `loop_fn` (in `code`, main's file without comments) set before line
// `loop_line` from a time: a clock read (`std::chrono::...::now()`, clock_gettime, gettimeofday,
// MPI_Wtime, omp_get_wtime), a function of `code` reading one, cudaEventElapsedTime's result, or a
// variable set from one of those, followed through assignments in order; those `iteration` (the
// served code's text) names. One line each: "`reps` (bench.cu:42) is set from a time the program
// measures (`t_comm`, bench.cu:40) ...", for a TODO; empty when none.
std::vector<std::string> ClockDerivedCounts(const std::string& file, const std::string& code, const std::string& loop_fn,
                                            int loop_line, const std::string& iteration);

}  // namespace cuco::scaffold_internal
