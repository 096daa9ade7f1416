#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = warehouse_lessons::fuzzing::lesson_file(data);
});
