enum EmbeddedPlaceholder {}
