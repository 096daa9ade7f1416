#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| warehouse_sim::fuzzing::container_shell(data));
