#if !canImport(Security)
    // Where the Security framework does not exist, the few constants `KeychainStore` uses, with the
    // framework's own raw values (kSecClass is "class", errSecItemNotFound is -25300, ...), so the same
    // source compiles and tests here exactly as it runs on Apple platforms.

    let kSecClass = "class"
    let kSecClassGenericPassword = "genp"
    let kSecAttrService = "svce"
    let kSecAttrAccount = "acct"
    let kSecAttrAccessGroup = "agrp"
    let kSecAttrSynchronizable = "sync"
    let kSecAttrAccessible = "pdmn"
    let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly = "cku"
    let kSecAttrAccessibleWhenUnlockedThisDeviceOnly = "aku"
    let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly = "akpu"
    let kSecAttrAccessControl = "accc"
    let kSecAttrLabel = "labl"
    let kSecUseAuthenticationContext = "u_AuthCtx"
    let kSecUseDataProtectionKeychain = "nleg"
    let kSecValueData = "v_Data"
    let kSecReturnData = "r_Data"
    let kSecMatchLimit = "m_Limit"
    let kSecMatchLimitOne = "m_LimitOne"

    let errSecSuccess: Int32 = 0
    let errSecUserCanceled: Int32 = -128
    let errSecParam: Int32 = -50
    let errSecNotAvailable: Int32 = -25291
    let errSecAuthFailed: Int32 = -25293
    let errSecNoSuchKeychain: Int32 = -25294
    let errSecDuplicateItem: Int32 = -25299
    let errSecItemNotFound: Int32 = -25300
    let errSecInteractionNotAllowed: Int32 = -25308
    let errSecMissingEntitlement: Int32 = -34018
#endif
