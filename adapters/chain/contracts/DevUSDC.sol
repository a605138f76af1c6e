// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title DevUSDC
/// @notice The devnet's USDC: an ERC-20 with 6 decimals, EIP-2612 `permit` and EIP-3009 transfer authorizations.
/// @dev The EIP-712 domain ("USD Coin", "2"), typehashes, function signatures and revert strings match Circle's
///      FiatToken v2.2 (USDC on Base), so clients, facilitators and error mapping treat devnet and Base alike.
///      No blacklist, pause or minter roles: only the deployer mints.
contract DevUSDC {
    /// @notice ERC-20 token name; also the EIP-712 domain name.
    string public constant name = "USD Coin";
    /// @notice ERC-20 token symbol.
    string public constant symbol = "USDC";
    /// @notice Decimal places: one token is 1e6 atomic units.
    uint8 public constant decimals = 6;
    /// @notice EIP-712 domain version, as FiatToken v2.
    string public constant version = "2";

    /// @notice keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")
    bytes32 private constant EIP712_DOMAIN_TYPEHASH =
        0x8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f;
    /// @notice keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)")
    bytes32 public constant PERMIT_TYPEHASH = 0x6e71edae12b1b97f4d1f60370fef10105fa2faae0126114a169c64845d6126c9;
    /// @notice keccak256("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)")
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH =
        0x7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267;
    /// @notice keccak256("ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)")
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH =
        0xd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de8;
    /// @notice keccak256("CancelAuthorization(address authorizer,bytes32 nonce)")
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH =
        0x158b0a9edf7a828aad02f63cd515c68ef2f50ba807396f6d12842833a1597429;

    /// @dev Upper bound of `s` in the lower half of the secp256k1 order (EIP-2).
    uint256 private constant SECP256K1_HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;
    /// @dev bytes4(keccak256("isValidSignature(bytes32,bytes)")), the EIP-1271 magic value.
    bytes4 private constant EIP1271_MAGIC_VALUE = 0x1626ba7e;

    /// @notice The account allowed to mint: the deployer.
    address public immutable owner;
    /// @notice Total supply in atomic units.
    uint256 public totalSupply;

    mapping(address => uint256) private _balances;
    mapping(address => mapping(address => uint256)) private _allowances;
    mapping(address => uint256) private _permitNonces;
    mapping(address => mapping(bytes32 => bool)) private _authorizationStates;

    /// @notice ERC-20 transfer, also emitted by mint with `from` = 0.
    event Transfer(address indexed from, address indexed to, uint256 value);
    /// @notice ERC-20 approval, also emitted by permit.
    event Approval(address indexed owner, address indexed spender, uint256 value);
    /// @notice EIP-3009: `nonce` of `authorizer` was used for a transfer.
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    /// @notice EIP-3009: `nonce` of `authorizer` was canceled before use.
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    constructor() {
        owner = msg.sender;
    }

    /// @notice Balance of `account` in atomic units.
    function balanceOf(address account) external view returns (uint256) {
        return _balances[account];
    }

    /// @notice Remaining amount `spender` may move from `holder`, in atomic units.
    function allowance(address holder, address spender) external view returns (uint256) {
        return _allowances[holder][spender];
    }

    /// @notice Moves `value` from the caller to `to`.
    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    /// @notice Lets `spender` move up to `value` of the caller's tokens.
    function approve(address spender, uint256 value) external returns (bool) {
        _approve(msg.sender, spender, value);
        return true;
    }

    /// @notice Moves `value` from `from` to `to` against the caller's allowance.
    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = _allowances[from][msg.sender];
        require(value <= allowed, "ERC20: transfer amount exceeds allowance");
        // An infinite allowance stays infinite, as in OpenZeppelin's ERC-20.
        if (allowed != type(uint256).max) _allowances[from][msg.sender] = allowed - value;
        _transfer(from, to, value);
        return true;
    }

    /// @notice Creates `amount` atomic units for `to`; only the owner (the deployer) may call it.
    function mint(address to, uint256 amount) external returns (bool) {
        require(msg.sender == owner, "DevUSDC: caller is not the owner");
        require(to != address(0), "FiatToken: mint to the zero address");
        totalSupply += amount;
        _balances[to] += amount;
        emit Transfer(address(0), to, amount);
        return true;
    }

    /// @notice EIP-712 domain separator, computed from the current chain id so it stays right under a fork.
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(
            abi.encode(EIP712_DOMAIN_TYPEHASH, keccak256(bytes(name)), keccak256(bytes(version)), block.chainid, address(this))
        );
    }

    /// @notice Next permit nonce of `holder`.
    function nonces(address holder) external view returns (uint256) {
        return _permitNonces[holder];
    }

    /// @notice EIP-2612: sets the allowance of `spender` over `holder`'s tokens from a (v, r, s) signature.
    function permit(address holder, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
    {
        _permit(holder, spender, value, deadline, abi.encodePacked(r, s, v));
    }

    /// @notice EIP-2612: sets the allowance from a packed ECDSA signature or an EIP-1271 signature of a contract.
    function permit(address holder, address spender, uint256 value, uint256 deadline, bytes memory signature)
        external
    {
        _permit(holder, spender, value, deadline, signature);
    }

    /// @notice Whether `nonce` of `authorizer` was used or canceled.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizationStates[authorizer][nonce];
    }

    /// @notice EIP-3009: executes a transfer signed by `from`, (v, r, s) form.
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        _transferWithAuthorization(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v)
        );
    }

    /// @notice EIP-3009: executes a transfer signed by `from`, packed or EIP-1271 signature form.
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external {
        _transferWithAuthorization(
            TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, signature
        );
    }

    /// @notice EIP-3009: the payee `to` (the caller) receives a transfer signed by `from`, (v, r, s) form.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        require(to == msg.sender, "FiatTokenV2: caller must be the payee");
        _transferWithAuthorization(
            RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v)
        );
    }

    /// @notice EIP-3009: the payee `to` (the caller) receives a transfer signed by `from`, bytes form.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external {
        require(to == msg.sender, "FiatTokenV2: caller must be the payee");
        _transferWithAuthorization(
            RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, signature
        );
    }

    /// @notice EIP-3009: `authorizer` cancels an unused authorization, (v, r, s) form.
    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external {
        _cancelAuthorization(authorizer, nonce, abi.encodePacked(r, s, v));
    }

    /// @notice EIP-3009: `authorizer` cancels an unused authorization, bytes form.
    function cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature) external {
        _cancelAuthorization(authorizer, nonce, signature);
    }

    function _transfer(address from, address to, uint256 value) private {
        require(from != address(0), "ERC20: transfer from the zero address");
        require(to != address(0), "ERC20: transfer to the zero address");
        uint256 balance = _balances[from];
        require(value <= balance, "ERC20: transfer amount exceeds balance");
        unchecked {
            _balances[from] = balance - value;
        }
        _balances[to] += value;
        emit Transfer(from, to, value);
    }

    function _approve(address holder, address spender, uint256 value) private {
        require(holder != address(0), "ERC20: approve from the zero address");
        require(spender != address(0), "ERC20: approve to the zero address");
        _allowances[holder][spender] = value;
        emit Approval(holder, spender, value);
    }

    function _permit(address holder, address spender, uint256 value, uint256 deadline, bytes memory signature)
        private
    {
        require(deadline == type(uint256).max || deadline >= block.timestamp, "FiatTokenV2: permit is expired");
        bytes32 structHash =
            keccak256(abi.encode(PERMIT_TYPEHASH, holder, spender, value, _permitNonces[holder]++, deadline));
        require(_isValidSignatureNow(holder, _hashTypedData(structHash), signature), "EIP2612: invalid signature");
        _approve(holder, spender, value);
    }

    function _transferWithAuthorization(
        bytes32 typehash,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) private {
        require(block.timestamp > validAfter, "FiatTokenV2: authorization is not yet valid");
        require(block.timestamp < validBefore, "FiatTokenV2: authorization is expired");
        require(!_authorizationStates[from][nonce], "FiatTokenV2: authorization is used or canceled");
        bytes32 structHash = keccak256(abi.encode(typehash, from, to, value, validAfter, validBefore, nonce));
        require(_isValidSignatureNow(from, _hashTypedData(structHash), signature), "FiatTokenV2: invalid signature");
        _authorizationStates[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
        _transfer(from, to, value);
    }

    function _cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature) private {
        require(!_authorizationStates[authorizer][nonce], "FiatTokenV2: authorization is used or canceled");
        bytes32 structHash = keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce));
        require(
            _isValidSignatureNow(authorizer, _hashTypedData(structHash), signature), "FiatTokenV2: invalid signature"
        );
        _authorizationStates[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    function _hashTypedData(bytes32 structHash) private view returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
    }

    /// @dev An account with code is asked through EIP-1271; any other account must have signed with ECDSA.
    function _isValidSignatureNow(address signer, bytes32 digest, bytes memory signature) private view returns (bool) {
        if (signer.code.length == 0) return _recover(digest, signature) == signer;
        (bool success, bytes memory result) =
            signer.staticcall(abi.encodeWithSelector(EIP1271_MAGIC_VALUE, digest, signature));
        return success && result.length >= 32 && abi.decode(result, (bytes32)) == bytes32(EIP1271_MAGIC_VALUE);
    }

    /// @dev ECDSA recovery that rejects malleable signatures: `s` in the lower half order, `v` 27 or 28.
    function _recover(bytes32 digest, bytes memory signature) private pure returns (address) {
        require(signature.length == 65, "ECRecover: invalid signature length");
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly {
            r := mload(add(signature, 0x20))
            s := mload(add(signature, 0x40))
            v := byte(0, mload(add(signature, 0x60)))
        }
        require(uint256(s) <= SECP256K1_HALF_ORDER, "ECRecover: invalid signature 's' value");
        require(v == 27 || v == 28, "ECRecover: invalid signature 'v' value");
        address signer = ecrecover(digest, v, r, s);
        require(signer != address(0), "ECRecover: invalid signature");
        return signer;
    }
}
