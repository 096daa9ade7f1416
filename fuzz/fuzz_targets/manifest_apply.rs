#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| warehouse_kubectl::fuzzing::manifest_apply(data));
