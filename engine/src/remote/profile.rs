//! The AWS CLI's shared files, `~/.aws/config` and `~/.aws/credentials`:
//! INI sections of `key = value` lines. [`Ini::parse`] never fails: a line
//! it cannot read is skipped, as the AWS CLI's reader skips comments
//! (`#`, `;`) and blank lines; an indented line under `key =` (a nested
//! block such as `s3 =`) belongs to that key and is not read. Pure: the
//! caller reads the files.

/// One file's sections, in file order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ini {
    sections: Vec<(String, Vec<(String, String)>)>,
}

impl Ini {
    /// Parses `text`.
    pub fn parse(text: &str) -> Ini {
        let mut ini = Ini::default();
        for line in text.lines() {
            let nested = line.starts_with([' ', '\t']);
            let line = line.trim();
            if line.is_empty() || line.starts_with(['#', ';']) {
                continue;
            }
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                ini.sections.push((name.trim().to_string(), Vec::new()));
                continue;
            }
            let (Some((key, value)), false) = (line.split_once('='), nested) else { continue };
            if let Some((_, keys)) = ini.sections.last_mut() {
                keys.push((key.trim().to_ascii_lowercase(), value.trim().to_string()));
            }
        }
        ini
    }

    /// The value of `key` in the section `section` (the last such key
    /// of the last such section wins, as in the AWS CLI).
    pub fn get(&self, section: &str, key: &str) -> Option<&str> {
        let keys = self.sections.iter().rev().find(|(name, _)| name == section)?;
        keys.1.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The value of `key` for the profile `profile` in a config file:
    /// section `[profile NAME]`, or `[default]` for the default profile.
    pub fn get_profile(&self, profile: &str, key: &str) -> Option<&str> {
        let named = self.get(&format!("profile {profile}"), key);
        named.or_else(|| (profile == "default").then(|| self.get("default", key)).flatten())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_keys_comments_and_nesting() {
        let config = "\
# comment
[default]
region = eu-west-1

[profile test]
region=us-east-2
endpoint_url = http://127.0.0.1:9000
s3 =
  endpoint_url = http://elsewhere
; another comment
AWS_ACCESS_KEY_ID = AK
garbage line
";
        let ini = Ini::parse(config);
        assert_eq!(ini.get_profile("default", "region"), Some("eu-west-1"));
        assert_eq!(ini.get_profile("test", "region"), Some("us-east-2"));
        assert_eq!(ini.get_profile("test", "endpoint_url"), Some("http://127.0.0.1:9000"));
        assert_eq!(ini.get_profile("test", "aws_access_key_id"), Some("AK"));
        assert_eq!(ini.get_profile("other", "region"), None);
        let creds = Ini::parse("[test]\naws_secret_access_key = s = e\n");
        assert_eq!(creds.get("test", "aws_secret_access_key"), Some("s = e"));
        assert_eq!(Ini::parse("key = before any section\n"), Ini::default());
    }
}
