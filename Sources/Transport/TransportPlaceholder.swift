enum TransportPlaceholder {}
