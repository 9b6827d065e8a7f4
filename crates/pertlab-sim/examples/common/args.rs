//! Command-line arguments of the examples: a bad one ends the program with a
//! message naming it and what it accepts (exit status 2), never a panic or a
//! silent default. Each example that includes this file uses a part of it.
#![allow(dead_code)]

use std::fmt::Display;
use std::str::FromStr;

/// Print `error: {message}` and end the program with status 2 (a usage error).
pub fn fail(message: impl Display) -> ! {
    eprintln!("error: {message}");
    std::process::exit(2)
}

/// The value of `name` parsed from `arg`, where `-` or no argument means `default`.
/// `accepts` says what the argument may be, for the message.
pub fn parse<T: FromStr>(arg: Option<&str>, name: &str, accepts: &str, default: T) -> Result<T, String> {
    match arg {
        None | Some("-") => Ok(default),
        Some(text) => text.parse().map_err(|_| format!("{name}: {accepts}, not {text:?}")),
    }
}

/// [`parse`], ending the program with the message where the argument is bad.
pub fn parse_or_exit<T: FromStr>(arg: Option<&str>, name: &str, accepts: &str, default: T) -> T {
    parse(arg, name, accepts, default).unwrap_or_else(|message| fail(message))
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn absent_or_dash_is_the_default_and_a_bad_value_is_named() {
        assert_eq!(parse::<u32>(None, "flows", "a whole number", 50), Ok(50));
        assert_eq!(parse::<u32>(Some("-"), "flows", "a whole number", 50), Ok(50));
        assert_eq!(parse::<u32>(Some("1000"), "flows", "a whole number", 50), Ok(1000));
        assert_eq!(parse::<u32>(Some("ten"), "flows", "a whole number", 50), Err("flows: a whole number, not \"ten\"".to_string()));
    }
}
