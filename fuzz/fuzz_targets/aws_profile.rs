//! The AWS CLI's shared files (`~/.aws/config`, `~/.aws/credentials`)
//! from arbitrary text: parsed without a panic, and every key read back
//! from a section that holds it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trigrep::remote::profile::Ini;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let ini = Ini::parse(&text);
    for name in ["default", "p", ""] {
        for key in ["region", "aws_access_key_id", "endpoint_url", ""] {
            let _ = ini.get(name, key);
            let _ = ini.get_profile(name, key);
        }
    }
});
