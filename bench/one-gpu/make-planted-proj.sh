#!/usr/bin/env bash
# The candidates the device calls of session 12 ran on the programs driving every GPU from one
# process or a thread per GPU, made from the seeds `cuco init` wrote (bench/one-gpu/make-premade.sh
# first): each a seed with one thing changed.
#   .carry/planted-proj/  planted wrong candidates (each must end not ok at two GPUs):
#     dp_broadcast_group-no-allreduce.cu      the gradients are not all-reduced
#     pp_microbatch_initall-one-slot.cu        every micro-batch's output written to the first slot
#     dp_allreduce_threads_bf16-no-allreduce.cu  the GEMM outputs are not all-reduced
#   .carry/debug/  pp_microbatch_initall at two GPUs, by hand (run with --unsafe-skip-deny-scan):
#     pp-dbg.cu     prints each hand-over and waits for it (its waits are skipped for another GPU's part)
#     pp-staged.cu  sends from a buffer of its own instead of the bound output (a harness window)
# Usage (repo root): bash bench/one-gpu/make-planted-proj.sh [PREMADE] (default .carry/hwl-knobs)
set -eu
P=${1:-.carry/hwl-knobs}
mkdir -p .carry/planted-proj .carry/debug
seed() { echo "$P/$1/harness/seed.cu"; }
change() { python3 "$(dirname "$0")/replace_once.py" "$@"; }  # change FILE OUT OLD NEW
change "$(seed dp_broadcast_group)" .carry/planted-proj/dp_broadcast_group-no-allreduce.cu \
  'NCCLCHECK(ncclAllReduce(d_grad[i], d_grad[i], w_elems, ncclFloat, ncclSum, comms[i], streams[i]));' \
  '(void)0;  // planted: the gradients are not all-reduced'
change "$(seed pp_microbatch_initall)" .carry/planted-proj/pp_microbatch_initall-one-slot.cu \
  'st.out + m * mb_elems, mb_tokens' 'st.out, mb_tokens'
change "$(seed dp_allreduce_threads_bf16)" .carry/planted-proj/dp_allreduce_threads_bf16-no-allreduce.cu \
  'NCCLCHECK(ncclAllReduce(d_y, d_y, y_elems, ncclBfloat16, ncclSum, comm, s));' '(void)0;  // planted: no all-reduce'
change "$(seed pp_microbatch_initall)" .carry/debug/pp-dbg.cu \
  '          NCCL_CALL(ncclGroupStart());
          NCCL_CALL(ncclSend(' \
  '          fprintf(stderr, "dbg rank %d it %lld m %d s %d tdev %d own %d send_foreign %d recv_foreign %d\n", cuco_program::rank(),
                  (long long)cuco_program::iteration(), m, s, cuco_program::proj::t_device, (int)cuco_program::proj::Own(),
                  (int)cuco_program::proj::IsForeign(comms[s - 1]), (int)cuco_program::proj::IsForeign(comms[s]));
          NCCL_CALL(ncclGroupStart());
          NCCL_CALL(ncclSend('
change .carry/debug/pp-dbg.cu .carry/debug/pp-dbg.cu \
  '          NCCL_CALL(ncclGroupEnd());
        }' \
  '          NCCL_CALL(ncclGroupEnd());
          if (!cuco_program::proj::IsForeign(comms[s])) {
            cudaError_t q = cudaStreamSynchronize(st.stream);
            fprintf(stderr, "dbg rank %d recv m %d synced: %d\n", cuco_program::rank(), m, (int)q);
          }
          if (!cuco_program::proj::IsForeign(comms[s - 1])) {
            cudaError_t q = cudaStreamSynchronize(stages[s - 1].stream);
            fprintf(stderr, "dbg rank %d send m %d synced: %d\n", cuco_program::rank(), m, (int)q);
          }
        }'
change "$(seed pp_microbatch_initall)" .carry/debug/pp-staged.cu \
  '          NCCL_CALL(ncclSend(stages[s - 1].out + m * mb_elems, mb_elems, ncclFloat, s, comms[s - 1],' \
  '          static float* staged = nullptr;  // debug: send from a buffer of the program'"'"'s own, not the harness'"'"'s window
          if (!cuco_program::proj::IsForeign(comms[s - 1])) {
            if (staged == nullptr) cudaMalloc(&staged, mb_elems * sizeof(float));
            cudaMemcpyAsync(staged, stages[s - 1].out + m * mb_elems, mb_elems * sizeof(float), cudaMemcpyDeviceToDevice,
                            stages[s - 1].stream);
          }
          NCCL_CALL(ncclSend(staged, mb_elems, ncclFloat, s, comms[s - 1],'
ls .carry/planted-proj .carry/debug
