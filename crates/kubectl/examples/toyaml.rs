//! Prints JSON from stdin as `kubectl get -o yaml` would. Handy for checking the
//! YAML printer against a real kubectl, which prints the same for
//! `kubectl label --local -f obj.json x=y -o yaml` (feed this its `-o json`):
//!
//! `cargo run -q -p warehouse-kubectl --example toyaml < obj.json`
use std::io::Read;

fn main() {
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .expect("stdin is readable");
    let v: serde_json::Value = serde_json::from_str(&s).expect("stdin holds JSON");
    print!("{}", warehouse_kubectl::printers::yaml::to_yaml(&v));
}
