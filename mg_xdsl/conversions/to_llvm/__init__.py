"""The conversions to the LLVM dialect, one per source dialect as upstream's
``convert-*-to-llvm`` (``convert-to-llvm`` runs them all), and the type converter they share
(``type_conversion``)."""
