enum AWSPlaceholder {}
