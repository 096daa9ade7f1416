#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| warehouse_kubectl::fuzzing::kubectl_line(data));
