//! Enums whose variants are named in experiment files and results.
//!
//! A choice of a TCP option, a congestion control, a drop or mark reason: each variant has
//! one name, written once beside it in a `named_enum!` list, from which the enum, its
//! serde form, `ALL` (the variants in order: the index of per-variant counters), `NAMES`
//! (what the catalog offers), `COUNT` and `name` all follow. A list kept beside the enum by
//! hand could miss a variant without the compiler noticing.

/// Declares a fieldless enum of named variants (see the module documentation):
///
/// ```ignore
/// named_enum! {
///     /// How the retransmission timeout is computed.
///     #[derive(Debug, Clone, Copy, PartialEq, Eq)]
///     pub enum RtoFormula {
///         /// RFC 6298.
///         Rfc6298 = "rfc6298",
///         /// Linux.
///         Linux = "linux",
///     }
/// }
/// ```
///
/// Serialized as its name; deserializing any other string is serde's `unknown variant`
/// error listing the names.
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $Name:ident {
            $( $(#[$vattr:meta])* $Variant:ident = $name:literal, )+
        }
    ) => {
        $(#[$meta])*
        $vis enum $Name {
            $( $(#[$vattr])* $Variant, )+
        }

        impl $Name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$Name] = &[$($Name::$Variant),+];
            /// Every variant's name, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$($name),+];
            /// The number of variants.
            pub const COUNT: usize = Self::ALL.len();

            /// Returns the variant's name in experiment files and results.
            pub const fn name(self) -> &'static str {
                match self {
                    $($Name::$Variant => $name,)+
                }
            }

            /// Returns the variant named `name`.
            pub fn from_name(name: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.name() == name)
            }
        }

        impl serde::Serialize for $Name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $Name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                Self::from_name(&name).ok_or_else(|| serde::de::Error::unknown_variant(&name, Self::NAMES))
            }
        }
    };
}

#[cfg(test)]
mod tests {
    named_enum! {
        /// A test enum.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Colour {
            /// Red.
            Red = "red",
            /// Light blue.
            LightBlue = "light_blue",
        }
    }

    #[test]
    fn names_order_serde_and_refusal_follow_the_one_list() {
        assert_eq!(Colour::ALL, &[Colour::Red, Colour::LightBlue]);
        assert_eq!(Colour::NAMES, &["red", "light_blue"]);
        assert_eq!(Colour::COUNT, 2);
        assert_eq!(Colour::LightBlue as usize, 1);
        assert_eq!(serde_json::to_string(&Colour::LightBlue).unwrap(), "\"light_blue\"");
        assert_eq!(serde_json::from_str::<Colour>("\"red\"").unwrap(), Colour::Red);
        let err = serde_json::from_str::<Colour>("\"green\"").unwrap_err().to_string();
        assert!(err.starts_with("unknown variant `green`, expected `red` or `light_blue`"), "{err}");
    }
}
