// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice ERC-4337 v0.7 packed user operation, as the EntryPoint passes it.
struct PackedUserOperation {
    address sender;
    uint256 nonce;
    bytes initCode;
    bytes callData;
    bytes32 accountGasLimits;
    uint256 preVerificationGas;
    bytes32 gasFees;
    bytes paymasterAndData;
    bytes signature;
}

/// @notice The parts of ERC-20 the account calls.
interface IERC20Transfer {
    function transfer(address to, uint256 amount) external returns (bool);
}

/// @title AgentAccount
/// @notice A non-custodial ERC-4337 (EntryPoint v0.7) smart account owned by one EOA, with session keys.
/// A user operation is signed by the owner (65-byte signature) or by a session key (its 20-byte address followed by
/// its 65-byte signature), both over the EIP-191 hash of the user operation hash. The owner may call anything; a
/// session key may only call `executeUserOp` wrapping `transfer(to, amount)` on a token it has a limit for, with no
/// value, until its expiry and while not revoked. Validation checks the shape, the key and that the amount fits the
/// per-period limit at all; it reads no clock (ERC-7562 bans TIMESTAMP in validation): the expiry goes back to the
/// EntryPoint as `validUntil`, which it enforces. The spending of the current period is then counted and enforced
/// in execution (`executeUserOp`, which receives the whole signed user operation), where the clock may be read.
/// Session keys are added and revoked by EIP-712 authorizations of the owner, submitted by anyone.
contract AgentAccount {
    /// @notice Per-token limit of a session key and what it spent in its latest period.
    struct Allowance {
        uint256 limit;
        uint256 spent;
        uint64 periodIndex;
    }

    /// @notice A session key's terms.
    struct SessionKey {
        uint48 validAfter;
        uint48 validUntil;
        uint48 period;
        bool active;
        address[] tokens;
    }

    /// @notice The EntryPoint v0.7 this account trusts.
    address public immutable entryPoint;
    /// @notice The EOA owning the account.
    address public immutable owner;
    /// @notice Next authorization nonce; each owner authorization uses the current one.
    uint256 public authorizationNonce;

    mapping(address => SessionKey) internal keys;
    mapping(address => mapping(address => Allowance)) internal allowances;
    address[] internal keyList;

    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 public constant ADD_SESSION_KEY_TYPEHASH = keccak256(
        "AddSessionKey(address key,uint48 validUntil,uint48 period,address[] tokens,uint256[] limits,uint256 nonce)"
    );
    bytes32 public constant REVOKE_SESSION_KEY_TYPEHASH = keccak256("RevokeSessionKey(address key,uint256 nonce)");
    uint256 internal constant SIG_VALIDATION_FAILED = 1;
    bytes4 internal constant TRANSFER_SELECTOR = IERC20Transfer.transfer.selector;

    event SessionKeyAdded(address indexed key, uint48 validUntil, uint48 period, address[] tokens, uint256[] limits);
    event SessionKeyRevoked(address indexed key);

    error NotEntryPoint();
    error NotOwner();
    error BadAuthorization();
    error BadSessionKey();
    error OverLimit(address token, uint256 remaining, uint256 amount);
    error CallFailed(bytes reason);

    constructor(address entryPoint_, address owner_) {
        entryPoint = entryPoint_;
        owner = owner_;
    }

    receive() external payable {}

    /// @notice EIP-712 domain separator: name "AgentAccount", version "1", this chain and this account.
    function domainSeparator() public view returns (bytes32) {
        return keccak256(
            abi.encode(DOMAIN_TYPEHASH, keccak256("AgentAccount"), keccak256("1"), block.chainid, address(this))
        );
    }

    /// @notice ERC-4337 validation: owner or session key signature; see the contract notice for the rules.
    function validateUserOp(PackedUserOperation calldata userOp, bytes32 userOpHash, uint256 missingAccountFunds)
        external
        returns (uint256 validationData)
    {
        if (msg.sender != entryPoint) revert NotEntryPoint();
        validationData = _validate(userOp, userOpHash);
        if (missingAccountFunds > 0) {
            (bool ok,) = payable(msg.sender).call{value: missingAccountFunds}("");
            (ok);
        }
    }

    function _validate(PackedUserOperation calldata userOp, bytes32 userOpHash) internal view returns (uint256) {
        bytes32 digest = keccak256(abi.encodePacked("\x19Ethereum Signed Message:\n32", userOpHash));
        bytes calldata signature = userOp.signature;
        if (signature.length == 65) {
            return _recover(digest, signature) == owner ? 0 : SIG_VALIDATION_FAILED;
        }
        if (signature.length != 85) return SIG_VALIDATION_FAILED;
        address key = address(bytes20(signature[:20]));
        if (_recover(digest, signature[20:]) != key) return SIG_VALIDATION_FAILED;
        SessionKey storage terms = keys[key];
        if (!terms.active) return SIG_VALIDATION_FAILED;
        (address token, uint256 amount, bool ok) = _transferOf(userOp.callData);
        if (!ok) return SIG_VALIDATION_FAILED;
        uint256 limit = allowances[key][token].limit;
        if (limit == 0 || amount > limit) return SIG_VALIDATION_FAILED;
        return (uint256(terms.validUntil) << 160) | (uint256(terms.validAfter) << 208);
    }

    /// @dev Decodes `executeUserOp` call data `(target, 0, transfer(to, amount))`; ok is false for any other shape.
    function _transferOf(bytes calldata callData) internal pure returns (address token, uint256 amount, bool ok) {
        if (callData.length < 4 || bytes4(callData[:4]) != this.executeUserOp.selector) return (address(0), 0, false);
        (address target, uint256 value, bytes memory data) = abi.decode(callData[4:], (address, uint256, bytes));
        if (value != 0 || data.length != 68) return (address(0), 0, false);
        bytes4 selector;
        assembly {
            selector := mload(add(data, 32))
            amount := mload(add(data, 68))
        }
        if (selector != TRANSFER_SELECTOR) return (address(0), 0, false);
        return (target, amount, true);
    }

    /// @notice Execution of a user operation whose call data is `executeUserOp.selector ++ abi.encode(target, value,
    /// data)`: the EntryPoint (v0.7, IAccountExecute) passes the whole user operation, so the session key that signed
    /// it is known here and its period spending is counted and enforced before the call.
    function executeUserOp(PackedUserOperation calldata userOp, bytes32) external {
        if (msg.sender != entryPoint) revert NotEntryPoint();
        (address target, uint256 value, bytes memory data) = abi.decode(userOp.callData[4:], (address, uint256, bytes));
        if (userOp.signature.length == 85) {
            address key = address(bytes20(userOp.signature[:20]));
            (address token, uint256 amount,) = _transferOf(userOp.callData);
            _spend(key, token, amount);
        }
        _call(target, value, data);
    }

    /// @notice Direct execution by the EntryPoint (owner-signed operations only reach it) or the owner.
    function execute(address target, uint256 value, bytes calldata data) external {
        if (msg.sender != entryPoint && msg.sender != owner) revert NotOwner();
        _call(target, value, data);
    }

    function _call(address target, uint256 value, bytes memory data) internal {
        (bool ok, bytes memory result) = target.call{value: value}(data);
        if (!ok) revert CallFailed(result);
    }

    function _spend(address key, address token, uint256 amount) internal {
        SessionKey storage terms = keys[key];
        Allowance storage allowance = allowances[key][token];
        uint64 index = uint64((block.timestamp - terms.validAfter) / terms.period);
        uint256 spent = allowance.periodIndex == index ? allowance.spent : 0;
        uint256 remaining = allowance.limit - spent;
        if (amount > remaining) revert OverLimit(token, remaining, amount);
        allowance.spent = spent + amount;
        allowance.periodIndex = index;
    }

    /// @notice Adds (or replaces) a session key, authorised by the owner's EIP-712 `AddSessionKey` signature over the
    /// current `authorizationNonce`. The key's periods start at this block.
    function addSessionKey(
        address key,
        uint48 validUntil,
        uint48 period,
        address[] calldata tokens,
        uint256[] calldata limits,
        bytes calldata signature
    ) external {
        if (key == address(0) || validUntil == 0 || period == 0 || tokens.length == 0 || tokens.length != limits.length) {
            revert BadSessionKey();
        }
        bytes32 structHash = keccak256(
            abi.encode(
                ADD_SESSION_KEY_TYPEHASH,
                key,
                validUntil,
                period,
                keccak256(abi.encodePacked(tokens)),
                keccak256(abi.encodePacked(limits)),
                authorizationNonce
            )
        );
        _authorize(structHash, signature);
        SessionKey storage terms = keys[key];
        if (!terms.active && terms.period == 0) keyList.push(key);
        for (uint256 i = 0; i < terms.tokens.length; i++) {
            delete allowances[key][terms.tokens[i]];
        }
        terms.validAfter = uint48(block.timestamp);
        terms.validUntil = validUntil;
        terms.period = period;
        terms.active = true;
        terms.tokens = tokens;
        for (uint256 i = 0; i < tokens.length; i++) {
            if (limits[i] == 0) revert BadSessionKey();
            allowances[key][tokens[i]] = Allowance(limits[i], 0, 0);
        }
        emit SessionKeyAdded(key, validUntil, period, tokens, limits);
    }

    /// @notice Revokes a session key, authorised by the owner's EIP-712 `RevokeSessionKey` signature; user operations
    /// validated from the next block on are refused.
    function revokeSessionKey(address key, bytes calldata signature) external {
        _authorize(keccak256(abi.encode(REVOKE_SESSION_KEY_TYPEHASH, key, authorizationNonce)), signature);
        if (!keys[key].active) revert BadSessionKey();
        keys[key].active = false;
        emit SessionKeyRevoked(key);
    }

    function _authorize(bytes32 structHash, bytes calldata signature) internal {
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", domainSeparator(), structHash));
        if (signature.length != 65 || _recover(digest, signature) != owner) revert BadAuthorization();
        authorizationNonce++;
    }

    /// @notice Every session key ever added, active or not.
    function sessionKeys() external view returns (address[] memory) {
        return keyList;
    }

    /// @notice A session key's terms.
    function sessionKey(address key)
        external
        view
        returns (bool active, uint48 validAfter, uint48 validUntil, uint48 period, address[] memory tokens)
    {
        SessionKey storage terms = keys[key];
        return (terms.active, terms.validAfter, terms.validUntil, terms.period, terms.tokens);
    }

    /// @notice What a session key may still transfer of `token` in the current period, and that period's end.
    function remaining(address key, address token) external view returns (uint256 amount, uint256 periodEnd) {
        SessionKey storage terms = keys[key];
        Allowance storage allowance = allowances[key][token];
        if (terms.period == 0) return (0, 0);
        uint64 index = uint64((block.timestamp - terms.validAfter) / terms.period);
        uint256 spent = allowance.periodIndex == index ? allowance.spent : 0;
        return (allowance.limit - spent, uint256(terms.validAfter) + (uint256(index) + 1) * terms.period);
    }

    /// @dev ECDSA recovery refusing malleable (high-s) signatures; address(0) when invalid.
    function _recover(bytes32 digest, bytes calldata signature) internal pure returns (address) {
        bytes32 r = bytes32(signature[:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0) return address(0);
        return ecrecover(digest, v, r, s);
    }
}

/// @title AgentAccountFactory
/// @notice Deploys AgentAccounts with CREATE2 from (owner, salt), so an account's address is known before it exists.
contract AgentAccountFactory {
    /// @notice The EntryPoint every account trusts.
    address public immutable entryPoint;

    event AccountCreated(address indexed account, address indexed owner, uint256 salt);

    constructor(address entryPoint_) {
        entryPoint = entryPoint_;
    }

    /// @notice Deploys the account of (owner, salt), or returns it when it already exists.
    function createAccount(address owner, uint256 salt) external returns (AgentAccount account) {
        address predicted = getAddress(owner, salt);
        if (predicted.code.length > 0) return AgentAccount(payable(predicted));
        account = new AgentAccount{salt: bytes32(salt)}(entryPoint, owner);
        emit AccountCreated(address(account), owner, salt);
    }

    /// @notice The CREATE2 address of the account of (owner, salt).
    function getAddress(address owner, uint256 salt) public view returns (address) {
        bytes32 initCodeHash =
            keccak256(abi.encodePacked(type(AgentAccount).creationCode, abi.encode(entryPoint, owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), bytes32(salt), initCodeHash)))));
    }
}
