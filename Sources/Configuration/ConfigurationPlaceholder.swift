enum ConfigurationPlaceholder {}
