"""The fast tier of the suite: `python -m pytest -m "not slow"` (README, "Tests").

A test is ``slow`` when it is in one of ``SLOW_DIRS`` (whole end-to-end families: kernels compiled
with g++ and run on the simulator, distributed runs, the real-assembler fixtures, the benchmarks)
and not in ``FAST_MODULES``, or in one of ``SLOW_MODULES``, or listed in ``SLOW_TESTS`` (a test elsewhere that took
3 s or more in a `--durations=0` run; parametrized cases count as their function). conftest.py
marks them at collection, so the tests themselves carry no marker. The fast tier still touches
every package: the front end, the IR, the passes, the dialect, codegen, the assembler, the
runtime (a few programs built and run), launch, jit, the command line, the distributed artifacts.

To refresh the list: `python -m pytest -q -n 2 --durations=0 tests/<dir>` and add the functions at
or above the threshold (or remove those that got faster).
"""

SLOW_DIRS = frozenset({"bench", "distributed", "distributed_dsl", "e2e", "interop", "mixed", "parity", "reliability"})

FAST_MODULES = frozenset({
    "tests/distributed/test_artifacts.py",
    "tests/distributed/test_features.py",
    "tests/distributed_dsl/test_errors.py",
    "tests/mixed/test_mixed_errors.py",
    "tests/parity/test_spec_names.py",
})

# whole modules outside SLOW_DIRS (written after the measured run: each compiles and runs programs)
SLOW_MODULES = frozenset({
    "tests/surface/test_torch.py",
})

SLOW_TESTS = frozenset({
    "tests/jit/test_program_cache.py::test_a_new_process_takes_an_unchanged_program_from_the_cache",
    "tests/jit/test_program_cache.py::test_an_edited_program_is_a_miss_and_runs_the_new_code",
    "tests/jit/test_program_cache.py::test_another_platform_is_a_miss",
    "tests/trace/test_trace_view.py::test_serves_the_trace_offline_and_stops",
    "tests/backend/test_assembler.py::test_goldens_execute_correctly",
    "tests/backend/test_assembler_errors.py::test_fuzz_garbage",
    "tests/backend/test_assembler_errors.py::test_fuzz_mutation",
    "tests/backend/test_fusion.py::test_a_store_over_a_loaded_window_takes_the_unfused_path",
    "tests/backend/test_fusion.py::test_a_tile_read_after_the_run_keeps_its_load",
    "tests/backend/test_fusion.py::test_absorbed_loads_and_stores_give_the_same_bytes",
    "tests/backend/test_fusion.py::test_fused_and_unfused_give_the_same_bytes",
    "tests/backend/test_wrapper.py::test_wrapped_compiles",
    "tests/backend/test_wrapper.py::test_wrapped_kernels_run",
    "tests/codegen/test_pto_golden.py::test_generated_cpp_compiles_cleanly",
    "tests/codegen/test_pto_golden.py::test_tree_bytes_are_deterministic",
    "tests/codegen/test_vector2_golden.py::test_family_golden",
    "tests/frontend/test_cube_errors.py::test_ddr_to_left_is_illegal",
    "tests/frontend/test_cube_ops_errors.py::test_bias_capacity_has_the_numbers",
    "tests/frontend/test_front_end_drift.py::test_jit_bodies_pass_windows_as_task_arguments",
    "tests/frontend/test_front_end_drift.py::test_pypto_spellings_and_aliases_run",
    "tests/frontend/test_front_end_drift.py::test_uint16_tensors_run",
    "tests/frontend/test_front_end_drift.py::test_window_writes_fold_their_bounds",
    "tests/frontend/test_static_checks.py::test_a_class_from_exec_is_explained",
    "tests/frontend/test_static_checks.py::test_inf_constants_reach_the_kernel",
    "tests/ir/test_optable.py::test_no_module_outside_the_table_lists_op_names",
    "tests/jit/test_block_scoping.py::test_at_block_takes_the_early_resolve_hint",
    "tests/jit/test_block_scoping.py::test_inner_loop_rebinding_an_outer_name_is_the_blocks_own",
    "tests/jit/test_block_scoping.py::test_jit_auto_scope",
    "tests/jit/test_block_scoping.py::test_k_looped_matmul_result_feeds_a_vector_op",
    "tests/jit/test_block_scoping.py::test_views_bound_in_the_orchestration_are_task_arguments_of_a_block",
    "tests/jit/test_cache.py::test_memory_hit_then_miss_reasons",
    "tests/jit/test_cache.py::test_second_process_hits_disk_cache",
    "tests/jit/test_cache.py::test_two_processes_compile_same_program_at_once",
    "tests/jit/test_jit_spmd.py::test_spmd_around_at",
    "tests/jit/test_return_call.py::test_return_of_a_kernel_call_runs_it",
    "tests/jit/test_run.py::test_bf16_and_host_build_graph",
    "tests/jit/test_run.py::test_dynamic_dim_compiles_once",
    "tests/jit/test_run.py::test_explicit_deps",
    "tests/jit/test_run.py::test_hello_world",
    "tests/jit/test_run.py::test_loop_of_tasks_and_inout",
    "tests/jit/test_run.py::test_multi_helper",
    "tests/jit/test_run.py::test_new_process_runs_from_disk_cache",
    "tests/jit/test_run.py::test_return_style_and_tensor_ops",
    "tests/jit/test_spec_hello_world.py::test_spec_hello_world_128",
    "tests/jit/test_vector_lanes_and_forms.py::test_at_allow_early_resolve_is_accepted",
    "tests/jit/test_vector_lanes_and_forms.py::test_compile_and_lower_from_declared_shapes",
    "tests/jit/test_vector_lanes_and_forms.py::test_gather_row_into_a_vec_tile",
    "tests/jit/test_vector_lanes_and_forms.py::test_incore_scope_is_a_kernel",
    "tests/jit/test_vector_lanes_and_forms.py::test_slice_of_a_tensor_is_a_window",
    "tests/jit/test_vector_lanes_and_forms.py::test_slice_with_a_valid_shape_past_the_tensor_end",
    "tests/jit/test_vector_lanes_and_forms.py::test_tensor_dim_bounds_an_orchestration_loop",
    "tests/jit/test_vector_lanes_and_forms.py::test_valid_rows_of_a_k_split_matmul_operand",
    "tests/jit/test_vector_lanes_and_forms.py::test_vector_only_none_region_runs_on_both_lanes",
    "tests/jit/test_vector_lanes_and_forms.py::test_vector_only_up_down_region_in_spmd_blocks",
    "tests/jit/test_warm_process.py::test_warm_call_in_a_new_process_does_not_compile",
    "tests/launch/test_elf_meta.py::test_fuzz_section_reader_mutated",
    "tests/launch/test_elf_meta.py::test_fuzz_section_reader_random",
    "tests/launch/test_elf_meta.py::test_fuzz_tlv_decoder",
    "tests/launch/test_elf_meta.py::test_good_mix_dispatcher",
    "tests/launch/test_elf_meta.py::test_ub_budget",
    "tests/pto/test_pto_columns.py::test_every_row_major_op_on_a_column_reads_row_views",
    "tests/pto/test_pto_roundtrip.py::test_every_generated_module_reprints_exactly",
    "tests/runtime/test_callable_image.py::test_cpp_offsetof_matches",
    "tests/runtime/test_callable_image.py::test_round_trip_property",
    "tests/runtime/test_fusion_run.py::test_fused_runs_match_unfused_and_nan_fill_runs",
    "tests/runtime/test_pch.py::test_a_damaged_pch_is_rebuilt",
    "tests/runtime/test_pch.py::test_a_header_beside_the_kernel_turns_it_off",
    "tests/runtime/test_pch.py::test_a_killed_pch_build_is_not_recorded_as_a_refusal",
    "tests/runtime/test_pch.py::test_a_refused_pch_is_recorded_and_kernels_build_without_it",
    "tests/runtime/test_pch.py::test_generated_kernels_use_the_pch_and_give_the_same_bytes",
    "tests/runtime/test_pch.py::test_one_pch_per_flag_list",
    "tests/runtime/test_pch.py::test_sources_without_the_prelude_get_no_pch",
    "tests/runtime/test_pch.py::test_warnings_are_still_errors_with_the_pch",
    "tests/runtime/test_races.py::test_race_in_manual_scope_is_reported",
    "tests/runtime/test_sim_errors.py::test_scalar_before_tensor_is_error_5",
    "tests/runtime/test_sim_in_place.py::test_a_failed_run_leaves_what_it_wrote_in_outputs_used_in_place",
    "tests/runtime/test_sim_in_place.py::test_arrays_the_device_cannot_use_are_copied",
    "tests/runtime/test_sim_in_place.py::test_in_place_results_equal_copied_results_and_inputs_keep_their_bytes",
    "tests/runtime/test_sim_in_place.py::test_torch_tensors_are_used_in_place",
    "tests/runtime/test_tile_lib.py::test_binary",
    "tests/runtime/test_tile_lib_errors.py::test_fatal_errors_abort_with_message",
    "tests/runtime/test_tile_lib_errors.py::test_header_compiles_standalone_and_as_c_hooks_header",
    "tests/runtime/test_tile_lib_errors.py::test_small_kernel_is_warning_clean",
    "tests/runtime/test_tile_lib_fastpaths.py::test_elementwise_avx2_equals_baseline",
    "tests/runtime/test_tile_lib_reduce_fast.py::test_fast_reductions_equal_the_reference_loop",
    "tests/surface/test_compiled_surface.py::test_an_output_whose_dimension_no_input_binds_cannot_be_allocated",
    "tests/surface/test_compiled_surface.py::test_one_output_is_returned_alone_and_dynamic_dims_come_from_the_inputs",
    "tests/surface/test_compiled_surface.py::test_outputs_left_out_are_allocated_and_returned",
    "tests/surface/test_compiled_surface.py::test_return_style_under_both_runtime_kinds",
    "tests/surface/test_compiled_surface.py::test_torch_inputs_get_torch_outputs",
    "tests/surface/test_jit_surface.py::test_call_with_a_config_runs_in_place_on_its_platform",
    "tests/surface/test_jit_surface.py::test_compile_returns_the_cached_object",
    "tests/surface/test_jit_surface.py::test_return_style_call_with_a_config",
    "tests/surface/test_program_objects.py::test_the_reparsed_program_computes_the_same_numbers",
    "tests/surface/test_run_config.py::test_a_ring_override_really_sizes_the_run",
    "tests/surface/test_run_config.py::test_golden_data_dir_compares_the_outputs",
    "tests/surface/test_user_tracebacks.py::test_a_shape_error_prints_the_users_frames_only",
    "tests/surface/test_user_tracebacks.py::test_ptokit_traceback_full_keeps_ptokit_frames",
    "tests/trace/test_cli_progress.py::test_build_command_progress",
    "tests/trace/test_cli_progress.py::test_run_prints_summary_and_writes_trace",
    "tests/trace/test_trace.py::test_trace_validates_against_the_format",
    "tests/trace/test_trace_sim.py::test_chain_and_fan_critical_paths_and_trace_round_trip",
    "tests/trace/test_trace_sim.py::test_mixed_task_lanes_on_one_cluster",
})


def is_slow(nodeid: str) -> bool:
    """``nodeid``: ``tests/<dir>/<file>::<function>[<params>]`` (relative to the repository)."""
    path = nodeid.split("::")[0]
    parts = path.split("/")
    if len(parts) > 2 and parts[1] in SLOW_DIRS and path not in FAST_MODULES:
        return True
    if path in SLOW_MODULES:
        return True
    return nodeid.split("[")[0] in SLOW_TESTS
